/* The tokens of the holds one state change or one delete took away, kept
 * until the recipe tells its user outside its lock (lost.c). Grows as
 * needed: every lost hold is named, however many one object has. */
#ifndef ZKC_LOST_H
#define ZKC_LOST_H

#include <stddef.h>
#include <stdint.h>

typedef struct zkc__lost_list {
  int64_t *tokens;
  size_t n, cap;
  int dropped; /* out of memory: some holds were not named */
} zkc__lost_list_t;

void zkc__lost_push(zkc__lost_list_t *l, int64_t token);
/* Frees the tokens; the list is empty again. */
void zkc__lost_clear(zkc__lost_list_t *l);

#endif /* ZKC_LOST_H */
