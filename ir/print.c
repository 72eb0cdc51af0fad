/* `fbec ir`: a stable, readable dump of the resolved IR. Tests and reviewers diff
 * it, so the format only changes on purpose. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "fbe/schema.h"

static void print_string(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            fputc(c, out);
        else
            fprintf(out, "\\x%02x", c);
    }
    fputc('"', out);
}

static void print_int(FILE *out, uint64_t bits, fbe_ir_kind kind)
{
    if (fbe_ir_kind_is_signed(kind))
        fprintf(out, "%" PRId64, (int64_t)bits);
    else
        fprintf(out, "%" PRIu64, bits);
}

static void print_value(FILE *out, const fbe_ir_value *v, const fbe_ir_type *t)
{
    switch (v->kind) {
    case FBE_IR_VALUE_NONE: break;
    case FBE_IR_VALUE_NULL: fputs("null", out); break;
    case FBE_IR_VALUE_BOOL: fputs(v->b ? "true" : "false", out); break;
    case FBE_IR_VALUE_INT: print_int(out, v->u, fbe_ir_int_kind(t)); break;
    case FBE_IR_VALUE_FLOAT: fprintf(out, "%.17g", v->d); break;
    case FBE_IR_VALUE_DECIMAL:
        fprintf(out, "decimal{lo=0x%016" PRIx64 ",hi=0x%08" PRIx32 ",flags=0x%08" PRIx32 "}",
                v->dec.lo, v->dec.hi, v->dec.flags);
        break;
    case FBE_IR_VALUE_STRING: print_string(out, v->str.data, v->str.size); break;
    case FBE_IR_VALUE_UUID: {
        char text[37];
        fbe_uuid_format(&v->uuid, text);
        fprintf(out, "uuid \"%s\"", text);
        break;
    }
    case FBE_IR_VALUE_UUID1: fputs("uuid1", out); break;
    case FBE_IR_VALUE_UUID4: fputs("uuid4", out); break;
    case FBE_IR_VALUE_UTC: fputs("utc", out); break;
    }
}

static void print_values(FILE *out, fbe_ir_kind base, const fbe_ir_enum_value *values,
                         size_t count)
{
    for (size_t i = 0; i < count; i++) {
        fprintf(out, "  %s = ", values[i].name);
        print_int(out, values[i].value, base);
        if (values[i].deprecated)
            fputs(" [deprecated]", out);
        if (values[i].hidden)
            fputs(" [hidden]", out);
        fputc('\n', out);
    }
}

static void print_final(FILE *out, bool fixed, uint32_t size)
{
    if (fixed)
        fprintf(out, "%u", size);
    else
        fputs("var", out);
}

/* false when a type name could not be printed whole (out of memory) */
static bool print_struct(FILE *out, const fbe_ir_struct *st)
{
    bool whole = true;
    fprintf(out, "\n%s %s", st->is_message ? "message" : "struct", st->full_name);
    if (st->base)
        fprintf(out, " : %s", st->base->full_name);
    fprintf(out, "\n  type %u", st->type_number);
    if (st->number_fixed && st->declared_number == 0 && st->base)
        fputs(" (from base)", out);
    else if (st->number_fixed)
        fputs(" (fixed)", out);
    fprintf(out, "\n  standard body %u, final ", st->std_body_size);
    print_final(out, st->final_fixed, st->final_size);
    fprintf(out, ", host size %u align %u\n", st->host_size, st->host_align);
    if (st->deprecated)
        fputs("  [deprecated]\n", out);
    if (st->hidden)
        fputs("  [hidden]\n", out);
    if (st->is_request) {
        fputs("  [request]", out);
        if (st->response)
            fprintf(out, " [response(%s)]", st->response->full_name);
        for (size_t i = 0; i < st->reject_count; i++)
            fprintf(out, " [reject(%s%s)]", st->rejects[i].global ? "*" : "",
                    st->rejects[i].type->full_name);
        fputc('\n', out);
    }
    for (size_t i = 0; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        /* Whole, however long: the JIT's object cache hashes this text. */
        char buf[512], *type = buf;
        size_t len = fbe_ir_type_spelling(f->type, buf, sizeof buf);
        if (len >= sizeof buf && (type = malloc(len + 1)) != NULL)
            fbe_ir_type_spelling(f->type, type, len + 1);
        whole = whole && type;
        fprintf(out, "  %2zu %-12s %-24s std %4u+%-3u host %4u+%-3u final ", i, f->name,
                type ? type : buf, f->std_offset, f->type->std_inline_size, f->host_offset,
                f->type->host_size);
        if (type != buf)
            free(type);
        print_final(out, f->type->final_fixed, f->type->final_size);
        if (f->owner != st)
            fprintf(out, " (from %s)", f->owner->full_name);
        if (f->is_id)
            fputs(" [id]", out);
        else if (f->is_key)
            fputs(" [key]", out);
        if (f->hidden)
            fputs(" [hidden]", out);
        if (f->deprecated)
            fputs(" [deprecated]", out);
        if (f->default_value.kind != FBE_IR_VALUE_NONE) {
            fputs(" = ", out);
            print_value(out, &f->default_value, f->type);
        }
        fputc('\n', out);
    }
    return whole;
}

bool fbe_ir_print_package(const fbe_ir_package *p, FILE *out)
{
    fprintf(out, "package %s offset %u version %u.%u\n", p->name, p->offset, p->version_major,
            p->version_minor);
    if (p->domain)
        fprintf(out, "domain %s\n", p->domain);
    for (size_t i = 0; i < p->import_count; i++)
        fprintf(out, "import %s\n", p->imports[i]->name);
    for (size_t i = 0; i < p->enum_count; i++) {
        const fbe_ir_enum *e = p->enums[i];
        fprintf(out, "\nenum %s : %s\n", e->full_name, fbe_ir_kind_name(e->base));
        print_values(out, e->base, e->values, e->value_count);
    }
    for (size_t i = 0; i < p->flags_count; i++) {
        const fbe_ir_flags *f = p->flags[i];
        fprintf(out, "\nflags %s : %s\n", f->full_name, fbe_ir_kind_name(f->base));
        print_values(out, f->base, f->values, f->value_count);
    }
    bool whole = true;
    for (size_t i = 0; i < p->struct_count; i++)
        whole = print_struct(out, p->structs[i]) && whole;
    return whole;
}

void fbe_ir_print(const fbe_schema *schema, FILE *out)
{
    fbe_ir_print_package(fbe_schema_root(schema), out);
}
