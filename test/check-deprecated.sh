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
zkc_lease_nodes|zkc_hold_node_list|char **n; size_t k; (void)zkc_lease_nodes(ls, &n, &k);|zkc_list_t *x; (void)zkc_hold_node_list(zkc_lease_hold(ls), &x);
zkc_latch_participants|zkc_latch_participant_list|size_t k; (void)zkc_latch_participants(l, NULL, &k);|zkc_list_t *x; (void)zkc_latch_participant_list(l, &x);
zkc_selector_participants|zkc_selector_participant_list|size_t k; (void)zkc_selector_participants(s, NULL, &k);|zkc_list_t *x; (void)zkc_selector_participant_list(s, &x);
zkc_participants_free|zkc_list_free|zkc_participants_free(NULL, 0);|zkc_list_free(NULL);
zkc_participant_t|zkc_list_t|zkc_participant_t *p = NULL; (void)p;|zkc_list_t *p = NULL; (void)p;
zkc_lock_contenders|zkc_lock_contender_list|zkc_contender_t *p; size_t k; (void)zkc_lock_contenders(c, "/a", &p, &k);|zkc_list_t *x; (void)zkc_lock_contender_list(c, "/a", &x);
zkc_contenders_free|zkc_list_free|zkc_contenders_free(NULL, 0);|zkc_list_free(NULL);
zkc_sem_contenders|zkc_sem_contender_list|zkc_contender_t *p, *q; size_t k, j; (void)zkc_sem_contenders(c, "/a", &p, &k, &q, &j);|zkc_list_t *x, *y; (void)zkc_sem_contender_list(c, "/a", &x, &y);
zkc_mutex_fencing_token|zkc_hold_fencing_token|int64_t t; (void)zkc_mutex_fencing_token(m, &t);|int64_t t; (void)zkc_hold_fencing_token(zkc_mutex_hold(m), &t);
zkc_latch_fencing_token|zkc_hold_fencing_token|int64_t t; (void)zkc_latch_fencing_token(l, &t);|int64_t t; (void)zkc_hold_fencing_token(zkc_latch_hold(l), &t);
zkc_selector_fencing_token|zkc_hold_fencing_token|int64_t t; (void)zkc_selector_fencing_token(s, &t);|int64_t t; (void)zkc_hold_fencing_token(zkc_selector_hold(s), &t);
zkc_lease_fencing_token|zkc_hold_fencing_token|int64_t t; (void)zkc_lease_fencing_token(ls, &t);|int64_t t; (void)zkc_hold_fencing_token(zkc_lease_hold(ls), &t);
zkc_mutex_is_held|zkc_hold_is_held|(void)zkc_mutex_is_held(m);|(void)zkc_hold_is_held(zkc_mutex_hold(m));
zkc_lease_is_held|zkc_hold_is_held|(void)zkc_lease_is_held(ls);|(void)zkc_hold_is_held(zkc_lease_hold(ls));
zkc_multilock_is_held|zkc_hold_is_held|(void)zkc_multilock_is_held(NULL);|(void)zkc_hold_is_held(zkc_multilock_hold(NULL));
zkc_mutex_lock_node|zkc_hold_node_list|char b[8]; (void)zkc_mutex_lock_node(m, b, sizeof b);|zkc_list_t *x; (void)zkc_hold_node_list(zkc_mutex_hold(m), &x);
zkc_latch_node|zkc_hold_node_list|char b[8]; (void)zkc_latch_node(l, b, sizeof b);|zkc_list_t *x; (void)zkc_hold_node_list(zkc_latch_hold(l), &x);
zkc_hold_node|zkc_hold_node_list|char b[8]; (void)zkc_hold_node(zkc_mutex_hold(m), b, sizeof b);|zkc_list_t *x; (void)zkc_hold_node_list(zkc_mutex_hold(m), &x);
zkc_lease_node_list|zkc_hold_node_list|zkc_list_t *x; (void)zkc_lease_node_list(ls, &x);|zkc_list_t *x; (void)zkc_hold_node_list(zkc_lease_hold(ls), &x);
zkc_mutex_fenced_get|zkc_hold_fenced_get|char *d; size_t n; int32_t v; (void)zkc_mutex_fenced_get(m, "/a", &d, &n, &v);|char *d; size_t n; int32_t v; (void)zkc_hold_fenced_get(zkc_mutex_hold(m), "/a", &d, &n, &v);
zkc_mutex_fenced_set|zkc_hold_fenced_set|(void)zkc_mutex_fenced_set(m, "/a", "d", 1);|(void)zkc_hold_fenced_set(zkc_mutex_hold(m), "/a", "d", 1);
zkc_mutex_fenced_create|zkc_hold_fenced_create|(void)zkc_mutex_fenced_create(m, "/a", "d", 1);|(void)zkc_hold_fenced_create(zkc_mutex_hold(m), "/a", "d", 1);
zkc_mutex_fenced_cas|zkc_hold_fenced_cas|(void)zkc_mutex_fenced_cas(m, "/a", "d", 1, 0, NULL);|(void)zkc_hold_fenced_cas(zkc_mutex_hold(m), "/a", "d", 1, 0, NULL);
zkc_stats_recipe_t|zkc_recipe_t|zkc_stats_recipe_t r = ZKC_RECIPE_MUTEX; (void)r;|zkc_recipe_t r = ZKC_RECIPE_MUTEX; (void)r;
ZKC_STATS_MUTEX|ZKC_RECIPE_MUTEX|zkc_recipe_t r = ZKC_STATS_MUTEX; (void)r;|zkc_recipe_t r = ZKC_RECIPE_MUTEX; (void)r;
ZKC_RECIPE_LOCK|ZKC_RECIPE_MUTEX|(void)zkc_layout_refusal(ZKC_RECIPE_LOCK, NULL, 0, NULL);|(void)zkc_layout_refusal(ZKC_RECIPE_MUTEX, NULL, 0, NULL);
zkc_stats_recipe_name|zkc_recipe_name|(void)zkc_stats_recipe_name(ZKC_RECIPE_MUTEX);|(void)zkc_recipe_name(ZKC_RECIPE_MUTEX);
LIST
[ $bad = 0 ] && echo "check-deprecated: ZKC_DEPRECATED warns and can be silenced; nothing is marked; every call 1.0 dropped is gone and its replacement builds"
exit $bad
