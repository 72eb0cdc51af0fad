#include "ast.h"

#include <string.h>

bool ast_list_push(fbe_arena *arena, ast_list *list, void *item)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 8;
        if (capacity > SIZE_MAX / sizeof(void *))
            return false;
        void **items = fbe_arena_alloc(arena, capacity * sizeof(void *));
        if (!items)
            return false;
        if (list->count)
            memcpy(items, list->items, list->count * sizeof(void *));
        /* The old array stays in the arena until it is freed. */
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = item;
    return true;
}
