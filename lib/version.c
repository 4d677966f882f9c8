/* SPDX-License-Identifier: Apache-2.0 */
/* zkc_version: the version this library was built as. */
#include "zkcoord/common.h"
#include "zkcoord/version.h"

unsigned zkc_version(void) { return ZKC_VERSION_HEX; }

const char *zkc_version_string(void) { return ZKC_VERSION_STRING; }
