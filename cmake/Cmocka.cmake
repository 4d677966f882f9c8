# SPDX-License-Identifier: Apache-2.0
# zkc_find_cmocka(): finds cmocka, the tests' only extra dependency, into
# CMOCKA_INCLUDE_DIR and CMOCKA_LIBRARY (cache entries a user may set) and
# sets ZKC_CMOCKA_FOUND when both exist: a path given that names nothing
# counts as not found.
function(zkc_find_cmocka)
  find_path(CMOCKA_INCLUDE_DIR NAMES cmocka.h)
  find_library(CMOCKA_LIBRARY NAMES cmocka)
  set(found OFF)
  if(CMOCKA_INCLUDE_DIR AND CMOCKA_LIBRARY AND
     EXISTS "${CMOCKA_INCLUDE_DIR}/cmocka.h" AND EXISTS "${CMOCKA_LIBRARY}")
    set(found ON)
  endif()
  set(ZKC_CMOCKA_FOUND ${found} PARENT_SCOPE)
endfunction()
