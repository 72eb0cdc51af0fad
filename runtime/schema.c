/* What a loaded schema is once loading is done: its packages and lookups by
 * name. Loading itself is the compiler's (frontend/load.c); these are here so
 * that a backend taking a schema links fbe_runtime, not the parser. */
#include "schema_impl.h"

#include <stdlib.h>
#include <string.h>

void fbe_schema_free(fbe_schema *schema)
{
    if (!schema)
        return;
    fbe_arena_free(&schema->arena);
    free(schema);
}

const fbe_ir_package *fbe_schema_root(const fbe_schema *schema)
{
    return schema->root;
}

size_t fbe_schema_package_count(const fbe_schema *schema)
{
    return schema->package_count;
}

const fbe_ir_package *fbe_schema_package(const fbe_schema *schema, size_t index)
{
    return index < schema->package_count ? schema->packages[index] : NULL;
}

/* Splits "pkg.Name" (or "Name" meaning the root package) and finds the package. */
static const fbe_ir_package *package_for(const fbe_schema *schema, const char *name,
                                         const char **local)
{
    const char *dot = strchr(name, '.');
    if (!dot) {
        *local = name;
        return schema->root;
    }
    *local = dot + 1;
    for (size_t i = 0; i < schema->package_count; i++) {
        const fbe_ir_package *p = schema->packages[i];
        if (strlen(p->name) == (size_t)(dot - name) && strncmp(p->name, name, (size_t)(dot - name)) == 0)
            return p;
    }
    return NULL;
}

const fbe_ir_struct *fbe_schema_find_struct(const fbe_schema *schema, const char *name)
{
    const char *local;
    const fbe_ir_package *p = package_for(schema, name, &local);
    for (size_t i = 0; p && i < p->struct_count; i++)
        if (strcmp(p->structs[i]->name, local) == 0)
            return p->structs[i];
    return NULL;
}

const fbe_ir_enum *fbe_schema_find_enum(const fbe_schema *schema, const char *name)
{
    const char *local;
    const fbe_ir_package *p = package_for(schema, name, &local);
    for (size_t i = 0; p && i < p->enum_count; i++)
        if (strcmp(p->enums[i]->name, local) == 0)
            return p->enums[i];
    return NULL;
}

const fbe_ir_flags *fbe_schema_find_flags(const fbe_schema *schema, const char *name)
{
    const char *local;
    const fbe_ir_package *p = package_for(schema, name, &local);
    for (size_t i = 0; p && i < p->flags_count; i++)
        if (strcmp(p->flags[i]->name, local) == 0)
            return p->flags[i];
    return NULL;
}
