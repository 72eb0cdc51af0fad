/* Loading a schema: files, imports (search path, cycles, duplicates). Every
 * package is parsed (frontend/) and resolved (ir/) once into the fbe_schema
 * object. This driver sits above both: frontend/ includes nothing of ir/ (the
 * public fbe/ir.h only, for type kinds), ir/ reads frontend/'s syntax tree, and
 * neither includes anything of driver/. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "diag.h"
#include "fbe/schema.h"
#include "resolve.h"
#include "schema_impl.h" /* the object loading fills; its accessors are runtime/schema.c */

enum { MAX_IMPORT_DEPTH = 64, MAX_PACKAGES = 1024 };

typedef struct loaded {
    const char *name;
    const fbe_ir_package *pkg; /* NULL while loading or after a failure */
    bool loading;
} loaded;

typedef struct loader {
    fbe_schema *schema;
    fbe_arena *arena;
    fbe_diags diags;
    const fbe_schema_options *opts;
    loaded items[MAX_PACKAGES];
    size_t item_count;
    size_t package_cap;
} loader;

static loaded *find_loaded(loader *L, const char *name)
{
    for (size_t i = 0; i < L->item_count; i++)
        if (strcmp(L->items[i].name, name) == 0)
            return &L->items[i];
    return NULL;
}

static bool append_package(loader *L, const fbe_ir_package *pkg)
{
    fbe_schema *s = L->schema;
    if (s->package_count == L->package_cap) {
        size_t cap = L->package_cap ? L->package_cap * 2 : 8;
        const fbe_ir_package **grown = fbe_arena_alloc(L->arena, sizeof(void *) * cap);
        if (!grown)
            return false;
        if (s->package_count)
            memcpy(grown, s->packages, sizeof(void *) * s->package_count);
        s->packages = grown;
        L->package_cap = cap;
    }
    s->packages[s->package_count++] = pkg;
    return true;
}

static char *dir_of(fbe_arena *arena, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return fbe_arena_strdup(arena, ".");
    if (slash == path)
        return fbe_arena_strdup(arena, "/");
    return fbe_arena_strndup(arena, path, (size_t)(slash - path));
}

/* Looks for NAME.fbe beside the importing file, then in each -I directory. */
static fbe_source *find_import(loader *L, const fbe_source *from, const ast_name *name)
{
    size_t ndirs = L->opts ? L->opts->include_dir_count : 0;
    char *dirs_text = fbe_arena_strdup(L->arena, "");
    for (size_t i = 0; i <= ndirs; i++) {
        const char *dir = i == 0 ? dir_of(L->arena, from->path) : L->opts->include_dirs[i - 1];
        if (!dir)
            return NULL;
        char *path = strcmp(dir, ".") == 0 && i == 0
                         ? fbe_arena_printf(L->arena, "%s.fbe", name->text)
                         : fbe_arena_printf(L->arena, "%s/%s.fbe", dir, name->text);
        if (!path)
            return NULL;
        fbe_source *src = fbe_source_read(L->arena, path);
        if (src)
            return src;
        if (errno != ENOENT && errno != ENOTDIR) {
            fbe_error(&L->diags, name->loc, "cannot read '%s': %s", path, strerror(errno));
            return NULL;
        }
        if (dirs_text)
            dirs_text = fbe_arena_printf(L->arena, "%s%s'%s'", dirs_text, i ? ", " : "", dir);
    }
    fbe_error(&L->diags, name->loc, "cannot find package '%s' (no %s.fbe in %s)", name->text,
              name->text, dirs_text ? dirs_text : "the search path");
    return NULL;
}

static const fbe_ir_package *load_package(loader *L, const fbe_source *src,
                                          const ast_name *imported_as, unsigned depth);

static const fbe_ir_package *load_import(loader *L, const fbe_source *from,
                                         const ast_name *name, unsigned depth)
{
    loaded *done = find_loaded(L, name->text);
    if (done) {
        if (done->loading) {
            fbe_error(&L->diags, name->loc, "circular import of package '%s'",
                      name->text);
            return NULL;
        }
        return done->pkg;
    }
    if (depth >= MAX_IMPORT_DEPTH) {
        fbe_error(&L->diags, name->loc, "imports are nested deeper than %d", MAX_IMPORT_DEPTH);
        return NULL;
    }
    fbe_source *src = find_import(L, from, name);
    if (!src)
        return NULL;
    return load_package(L, src, name, depth + 1);
}

static const fbe_ir_package *load_package(loader *L, const fbe_source *src,
                                          const ast_name *imported_as, unsigned depth)
{
    unsigned errors_before = L->diags.errors;
    ast_file *file = fbe_parse(src, L->arena, &L->diags);
    if (!file || L->diags.errors != errors_before || !file->has_package)
        return NULL;
    if (imported_as && strcmp(file->package.text, imported_as->text) != 0) {
        fbe_error(&L->diags, file->package.loc,
                  "'%s' declares package '%s', but it was imported as '%s'", src->path,
                  file->package.text, imported_as->text);
        return NULL;
    }
    if (find_loaded(L, file->package.text)) {
        /* Only the root can get here: it imports a package with its own name. */
        fbe_error(&L->diags, file->package.loc, "package '%s' is loaded twice",
                  file->package.text);
        return NULL;
    }
    if (L->item_count == MAX_PACKAGES) {
        fbe_error(&L->diags, file->package.loc, "too many packages (the limit is %d)",
                  MAX_PACKAGES);
        return NULL;
    }
    size_t self = L->item_count++;
    L->items[self] = (loaded){file->package.text, NULL, true};

    size_t n = file->imports.count;
    const fbe_ir_package **imports = fbe_arena_zalloc(L->arena, sizeof(void *) * (n + 1));
    bool ok = imports != NULL;
    for (size_t i = 0; ok && i < n && !fbe_diags_full(&L->diags); i++) {
        const ast_name *name = file->imports.items[i];
        for (size_t j = 0; j < i; j++) {
            const ast_name *prev = file->imports.items[j];
            if (strcmp(prev->text, name->text) == 0) {
                fbe_error(&L->diags, name->loc, "package '%s' is imported twice", name->text);
                ok = false;
            }
        }
        if (strcmp(name->text, file->package.text) == 0) {
            fbe_error(&L->diags, name->loc, "package '%s' imports itself", name->text);
            ok = false;
        }
        if (!ok)
            break;
        imports[i] = load_import(L, src, name, depth);
        if (!imports[i])
            ok = false;
    }
    const fbe_ir_package *pkg = NULL;
    if (ok && L->diags.errors == errors_before)
        pkg = fbe_resolve_package(L->arena, &L->diags, file, imports, n);
    L->items[self].loading = false;
    L->items[self].pkg = pkg;
    if (pkg && !append_package(L, pkg))
        return NULL;
    return pkg;
}

static fbe_schema *load(const fbe_source *(*get)(fbe_arena *, const void *), const void *arg,
                        const char *path, const fbe_schema_options *options,
                        unsigned *error_count)
{
    fbe_schema *schema = calloc(1, sizeof *schema);
    loader *L = calloc(1, sizeof *L);
    if (!schema || !L) {
        free(schema);
        free(L);
        if (error_count)
            *error_count = 1;
        return NULL;
    }
    fbe_arena_init(&schema->arena, NULL, NULL);
    L->schema = schema;
    L->arena = &schema->arena;
    L->opts = options;
    fbe_diags_init(&L->diags, options ? options->sink : NULL, options ? options->sink_ctx : NULL);

    const fbe_source *src = get(L->arena, arg);
    if (!src) {
        fbe_error(&L->diags, (fbe_loc){0}, "cannot read '%s': %s", path, strerror(errno));
    } else {
        schema->root = load_package(L, src, NULL, 0);
        if (!schema->root && L->diags.errors == 0)
            fbe_error(&L->diags, (fbe_loc){0}, "out of memory while loading '%s'", path);
    }
    unsigned errors = L->diags.errors;
    free(L);
    if (error_count)
        *error_count = errors;
    if (errors) {
        fbe_schema_free(schema);
        return NULL;
    }
    return schema;
}

static const fbe_source *get_file(fbe_arena *arena, const void *arg)
{
    return fbe_source_read(arena, arg);
}

typedef struct memory_input {
    const char *name;
    const char *text;
    size_t len;
} memory_input;

static const fbe_source *get_memory(fbe_arena *arena, const void *arg)
{
    const memory_input *in = arg;
    return fbe_source_from_memory(arena, in->name, in->text, in->len);
}

fbe_schema *fbe_schema_load(const char *path, const fbe_schema_options *options,
                            unsigned *error_count)
{
    return load(get_file, path, path, options, error_count);
}

fbe_schema *fbe_schema_load_string(const char *name, const char *text, size_t len,
                                   const fbe_schema_options *options, unsigned *error_count)
{
    memory_input in = {name, text, len};
    return load(get_memory, &in, name, options, error_count);
}
