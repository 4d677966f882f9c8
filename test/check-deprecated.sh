#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The 0.x calls that 1.0 drops are marked deprecated (ZKC_DEPRECATED,
# zkcoord/common.h): a program that calls one gets the compiler's warning,
# which names the replacement, and with -Werror does not build; the same
# program written with the replacement builds clean. A program that defines
# ZKC_NO_DEPRECATION_WARNINGS builds without the warning.
#
#   check-deprecated.sh CC INCLUDE_DIR...
set -uo pipefail
cc=$1
shift
incs=()
for d in "$@"; do incs+=("-I$d"); done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0
# old call | its replacement | the statement with the old | with the new
while IFS='|' read -r old new stmt_old stmt_new; do
  [ -n "$old" ] || continue
  for form in old new quiet; do
    stmt=$stmt_old
    [ $form = new ] && stmt=$stmt_new
    {
      [ $form = quiet ] && echo '#define ZKC_NO_DEPRECATION_WARNINGS'
      echo '#include <zkcoord/zkcoord.h>'
      echo 'void f(zkc_client_t *c, zkc_mutex_t *m, zkc_lease_t *ls, zkc_latch_t *l, zkc_selector_t *s);'
      echo 'void f(zkc_client_t *c, zkc_mutex_t *m, zkc_lease_t *ls, zkc_latch_t *l, zkc_selector_t *s) {'
      echo '  (void)c; (void)m; (void)ls; (void)l; (void)s;'
      echo "  $stmt"
      echo '}'
    } >"$work/t.c"
    "$cc" -std=c11 -Wall -Wextra -Werror "${incs[@]}" -c "$work/t.c" -o "$work/t.o" 2>"$work/err"
    rc=$?
    if [ $form = old ]; then
      if [ $rc = 0 ]; then
        echo "check-deprecated: $old builds without a deprecation warning" >&2
        bad=1
      elif ! grep -q "deprecated" "$work/err" || ! grep -qF "use $new instead" "$work/err"; then
        echo "check-deprecated: $old fails, but not with a warning naming $new:" >&2
        sed 's/^/  /' "$work/err" >&2
        bad=1
      fi
    elif [ $rc != 0 ]; then
      echo "check-deprecated: the $form form ($stmt) does not build:" >&2
      sed 's/^/  /' "$work/err" >&2
      bad=1
    fi
  done
done <<'LIST'
zkc_strings_free|zkc_list_free|zkc_strings_free(NULL, 0);|zkc_list_free(NULL);
zkc_mutex_participant_nodes|zkc_mutex_node_list|char **n; size_t k; (void)zkc_mutex_participant_nodes(m, &n, &k);|zkc_list_t *x; (void)zkc_mutex_node_list(m, &x);
zkc_lease_nodes|zkc_lease_node_list|char **n; size_t k; (void)zkc_lease_nodes(ls, &n, &k);|zkc_list_t *x; (void)zkc_lease_node_list(ls, &x);
zkc_latch_participants|zkc_latch_participant_list|zkc_participant_t *p; size_t k; (void)zkc_latch_participants(l, &p, &k);|zkc_list_t *x; (void)zkc_latch_participant_list(l, &x);
zkc_selector_participants|zkc_selector_participant_list|zkc_participant_t *p; size_t k; (void)zkc_selector_participants(s, &p, &k);|zkc_list_t *x; (void)zkc_selector_participant_list(s, &x);
zkc_participants_free|zkc_list_free|zkc_participants_free(NULL, 0);|zkc_list_free(NULL);
zkc_lock_contenders|zkc_lock_contender_list|zkc_contender_t *p; size_t k; (void)zkc_lock_contenders(c, "/a", &p, &k);|zkc_list_t *x; (void)zkc_lock_contender_list(c, "/a", &x);
zkc_contenders_free|zkc_list_free|zkc_contenders_free(NULL, 0);|zkc_list_free(NULL);
zkc_sem_contenders|zkc_sem_contender_list|zkc_contender_t *p, *q; size_t k, j; (void)zkc_sem_contenders(c, "/a", &p, &k, &q, &j);|zkc_list_t *x, *y; (void)zkc_sem_contender_list(c, "/a", &x, &y);
LIST
[ $bad = 0 ] && echo "check-deprecated: every deprecated call warns, naming its replacement, which builds"
exit $bad
