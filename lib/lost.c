/* The recipes' list of lost holds (see lost.h). */
#include "lost.h"

#include <stdlib.h>

void zkc__lost_push(zkc__lost_list_t *l, int64_t token) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 4;
    int64_t *t = realloc(l->tokens, cap * sizeof *t);
    if (t == NULL) {
      l->dropped = 1;
      return;
    }
    l->tokens = t, l->cap = cap;
  }
  l->tokens[l->n++] = token;
}

void zkc__lost_clear(zkc__lost_list_t *l) {
  free(l->tokens);
  l->tokens = NULL;
  l->n = l->cap = 0;
}
