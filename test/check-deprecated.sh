#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Deprecation and removal, as 1.0 left them:
#  - ZKC_DEPRECATED (zkcoord/common.h) still marks a declaration for a
#    later major: a call to one draws the compiler's warning naming the
#    replacement (with -Werror the program does not build), and defining
#    ZKC_NO_DEPRECATION_WARNINGS silences it;
#  - no public header marks anything deprecated now (1.0 dropped every 0.x
#    form);
#  - each 0.x call 1.0 dropped is gone: a program calling it does not
#    build, and the same program written with its replacement does.
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
build() { # builds $work/t.c; the compiler's messages in $work/err
  "$cc" -std=c11 -Wall -Wextra -Werror "${incs[@]}" -c "$work/t.c" -o "$work/t.o" 2>"$work/err"
}

# The macro, on a declaration of the program's own.
for form in warn quiet; do
  {
    [ $form = quiet ] && echo '#define ZKC_NO_DEPRECATION_WARNINGS'
    echo '#include <zkcoord/zkcoord.h>'
    echo 'int old_call(void) ZKC_DEPRECATED("new_call");'
    echo 'int f(void);'
    echo 'int f(void) { return old_call(); }'
  } >"$work/t.c"
  build
  rc=$?
  if [ $form = warn ] && { [ $rc = 0 ] || ! grep -qF "use new_call instead" "$work/err"; }; then
    echo "check-deprecated: ZKC_DEPRECATED(\"new_call\") does not warn naming new_call:" >&2
    sed 's/^/  /' "$work/err" >&2
    bad=1
  elif [ $form = quiet ] && [ $rc != 0 ]; then
    echo "check-deprecated: ZKC_NO_DEPRECATION_WARNINGS does not silence ZKC_DEPRECATED:" >&2
    sed 's/^/  /' "$work/err" >&2
    bad=1
  fi
done

for d in "$@"; do
  if grep -n 'ZKC_DEPRECATED(' "$d"/zkcoord/*.h 2>/dev/null | grep -v '#define ZKC_DEPRECATED'; then
    echo "check-deprecated: ^ a public header marks a declaration deprecated: 1.0 has none (list it here with its replacement)" >&2
    bad=1
  fi
done

# removed call | its replacement | the statement with the old | with the new
while IFS='|' read -r old new stmt_old stmt_new; do
  [ -n "$old" ] || continue
  for form in old new; do
    stmt=$stmt_old
    [ $form = new ] && stmt=$stmt_new
    {
      echo '#include <zkcoord/zkcoord.h>'
      echo 'void f(zkc_client_t *c, zkc_mutex_t *m, zkc_lease_t *ls, zkc_latch_t *l, zkc_selector_t *s);'
      echo 'void f(zkc_client_t *c, zkc_mutex_t *m, zkc_lease_t *ls, zkc_latch_t *l, zkc_selector_t *s) {'
      echo '  (void)c; (void)m; (void)ls; (void)l; (void)s;'
      echo "  $stmt"
      echo '}'
    } >"$work/t.c"
    build
    rc=$?
    if [ $form = old ] && [ $rc = 0 ]; then
      echo "check-deprecated: $old still builds: 1.0 dropped it" >&2
      bad=1
    elif [ $form = new ] && [ $rc != 0 ]; then
      echo "check-deprecated: the replacement of $old ($stmt) does not build:" >&2
      sed 's/^/  /' "$work/err" >&2
      bad=1
    fi
  done
done <<'LIST'
zkc_strings_free|zkc_list_free|zkc_strings_free(NULL, 0);|zkc_list_free(NULL);
zkc_mutex_participant_nodes|zkc_mutex_node_list|char **n; size_t k; (void)zkc_mutex_participant_nodes(m, &n, &k);|zkc_list_t *x; (void)zkc_mutex_node_list(m, &x);
zkc_lease_nodes|zkc_lease_node_list|char **n; size_t k; (void)zkc_lease_nodes(ls, &n, &k);|zkc_list_t *x; (void)zkc_lease_node_list(ls, &x);
zkc_latch_participants|zkc_latch_participant_list|size_t k; (void)zkc_latch_participants(l, NULL, &k);|zkc_list_t *x; (void)zkc_latch_participant_list(l, &x);
zkc_selector_participants|zkc_selector_participant_list|size_t k; (void)zkc_selector_participants(s, NULL, &k);|zkc_list_t *x; (void)zkc_selector_participant_list(s, &x);
zkc_participants_free|zkc_list_free|zkc_participants_free(NULL, 0);|zkc_list_free(NULL);
zkc_participant_t|zkc_list_t|zkc_participant_t *p = NULL; (void)p;|zkc_list_t *p = NULL; (void)p;
zkc_lock_contenders|zkc_lock_contender_list|zkc_contender_t *p; size_t k; (void)zkc_lock_contenders(c, "/a", &p, &k);|zkc_list_t *x; (void)zkc_lock_contender_list(c, "/a", &x);
zkc_contenders_free|zkc_list_free|zkc_contenders_free(NULL, 0);|zkc_list_free(NULL);
zkc_sem_contenders|zkc_sem_contender_list|zkc_contender_t *p, *q; size_t k, j; (void)zkc_sem_contenders(c, "/a", &p, &k, &q, &j);|zkc_list_t *x, *y; (void)zkc_sem_contender_list(c, "/a", &x, &y);
LIST
[ $bad = 0 ] && echo "check-deprecated: ZKC_DEPRECATED warns and can be silenced; nothing is marked; every call 1.0 dropped is gone and its replacement builds"
exit $bad
