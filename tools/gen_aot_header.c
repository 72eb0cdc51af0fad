/* The header shared by `fbec aot --header` and `fbec c --header` (see
 * gen_aot_header.h); moved here from cmd_aot.c so both commands write the same
 * text from the same code. */
#define _POSIX_C_SOURCE 200809L
#include "gen_aot_header.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_header.h"

/* The declarations of the object's symbols, after the host structs. */
static void write_aot_block(FILE *out, const fbe_schema *schema, const size_t missing[2][4])
{
    const fbe_ir_package *root = fbe_schema_root(schema);
    char prefix[FBE_IR_MAX_PREFIX + 1];
    fbe_ir_package_prefix(root, prefix);
    char guard[FBE_IR_MAX_PREFIX + 16];
    snprintf(guard, sizeof guard, "FBE_AOT_%s_H", prefix + 4);
    for (char *c = guard; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    fprintf(out,
            "\n/* Symbols of the object `fbec aot` compiled from %s.fbe (package %s):\n"
            " * see docs/aot.md. Link the object with fbe_runtime. */\n"
            "#ifndef %s\n#define %s\n\n#include <fbe/aot.h>\n\n"
            "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
            "/* A new codec for every struct of %s and its imports (fbe_codec_free). */\n"
            "fbe_codec *%s_codec_create(fbe_status *status);\n"
            "/* The IR of the schema and the native entry points of every struct. */\n"
            "extern const fbe_aot_image %s_aot_image;\n",
            root->name, root->name, guard, guard, root->name, prefix, prefix);
    bool any = false;
    for (int m = 0; m < 2; m++)
        for (int op = 0; op < 4; op++)
            if (missing[m][op])
                any = true;
    if (root->struct_count)
        fprintf(out, "\n/* Entry points (fbe/codec.h signatures; `type` is the codec's type,\n"
                     " * e.g. fbe_codec_type(codec, \"%s.%s\")). */\n",
                root->name, root->structs[0]->name);
    if (any)
        fputs("/* Operations without native code in this object are not declared. */\n", out);
    for (size_t i = 0; i < root->struct_count; i++) {
        const char *c = root->structs[i]->c_name;
        for (int m = 0; m < 2; m++) {
            const char *model = m == 0 ? "std" : "final";
            if (!missing[m][0])
                fprintf(out, "size_t fbe_%s_%s_size(const fbe_type *type, const void *value);\n",
                        c, model);
            if (!missing[m][1])
                fprintf(out,
                        "fbe_status fbe_%s_%s_serialize(const fbe_type *type, const void *value,\n"
                        "    fbe_buffer *out);\n",
                        c, model);
            if (!missing[m][2])
                fprintf(out,
                        "fbe_status fbe_%s_%s_verify(const fbe_type *type, const uint8_t *data,\n"
                        "    size_t size, fbe_verify_info *info, const fbe_decode_options *options);\n",
                        c, model);
            if (!missing[m][3])
                fprintf(out,
                        "fbe_status fbe_%s_%s_deserialize(const fbe_type *type, const uint8_t *data,\n"
                        "    size_t size, void *value, const fbe_decode_options *options,\n"
                        "    size_t *consumed);\n",
                        c, model);
        }
    }
    fprintf(out, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
}

bool fbe_gen_aot_header(const char *cmd, const char *path, const fbe_schema *schema,
                        const size_t missing[2][4])
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        fprintf(stderr, "fbec %s: out of memory\n", cmd);
        return false;
    }
    bool ok = fbe_gen_header(schema, fbe_schema_root(schema), mem);
    if (ok)
        write_aot_block(mem, schema, missing);
    ok = fclose(mem) == 0 && ok;
    if (ok) {
        FILE *f = fopen(path, "w");
        if (!f) {
            fprintf(stderr, "fbec %s: cannot open '%s': %s\n", cmd, path, strerror(errno));
            ok = false;
        } else {
            ok = fwrite(text, 1, len, f) == len;
            ok = fclose(f) == 0 && ok;
            if (!ok) {
                fprintf(stderr, "fbec %s: error writing '%s'\n", cmd, path);
                remove(path);
            }
        }
    }
    free(text);
    return ok;
}
