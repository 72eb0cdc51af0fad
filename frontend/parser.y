/* Grammar of .fbe schemas (schema-language.md §2), building the AST of ast.h.
 *
 * A pure bison parser driven by the reentrant scanner in lexer.l (fbe_parse() is
 * there). Every node and string comes from the parse arena, so error paths need
 * no cleanup.
 *
 * Syntax errors read like bison's "detailed" messages
 *     syntax error, unexpected identifier, expecting integer literal
 * (at most four expected tokens are listed, otherwise none), except that one
 * missing punctuation token is reported like gcc does, right after the previous
 * token, where it has to be typed: `expected ';' after field`. Because the keywords
 * `domain package offset import version request response reject` are also names,
 * they are folded into "identifier" when an identifier is expected.
 *
 * Error recovery (bison `error` token):
 *  - field / enum value level: skip to the next `;`; or to the `}` that closes
 *    the body;
 *  - declaration header (after `struct`/`message`/`enum`/`flags`): skip to the
 *    `{` of the body (which is then parsed normally) or to a `}`;
 *  - top level: skip to the next `;` or `}`;
 *  - file header (domain/package/offset/version/imports): skip it, continue with
 *    the declarations.
 * After a top-level or header recovery bison reports nothing more until three
 * tokens were shifted, which keeps one mistake from cascading; inside a body a
 * `;` is a reliable boundary, so the next field's error is reported at once. Parsing stops once the error cap of
 * the diagnostics is reached. Every rule list is left-recursive and no `error`
 * is followed by something that can start with `error`, so the parser stack
 * stays small (no growth beyond the initial stack) whatever the input. */

%code requires {
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

#include "ast.h"
#include "diag.h"

#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif

/* Shared by the scanner (as its extra data) and the parser. */
typedef struct fbe_parse_ctx {
    const fbe_source *source;
    fbe_arena *arena;
    fbe_diags *diags;
    ast_file *file;
    bool oom;             /* memory ran out: fbe_parse returns NULL */
    bool stop;            /* error cap reached or out of memory: wind down */
    uint32_t line, col;   /* scanner position (1-based, bytes) */
    fbe_loc comment_start;
    /* Where the last two tokens ended (line 0: none yet), and the kind of body
     * each was in: a missing ';' or closer is reported where it belongs, right
     * after the previous token (see report_expected). */
    uint32_t end_line, end_col, prev_end_line, prev_end_col;
    int body, prev_body, pending_body; /* FBE_BODY_* */
    yyscan_t scanner;
    jmp_buf fatal;        /* flex fatal errors (allocation) land here */
} fbe_parse_ctx;

enum { FBE_BODY_NONE, FBE_BODY_FIELDS, FBE_BODY_ENUM, FBE_BODY_FLAGS };

/* Semantic values of helper rules. */
typedef struct fbe_struct_spec {
    ast_type_spec spec;
    const char *number_text;
    fbe_loc number_loc;
    bool has_base;
    ast_name base;
} fbe_struct_spec;

/* A dotted name being built: text has room for cap bytes (cap == 0: text is
 * not owned by the builder yet and must be copied before appending). */
typedef struct fbe_dotted {
    char *text;
    size_t len;
    size_t cap;
    fbe_loc loc;
} fbe_dotted;

typedef struct fbe_enum_base {
    bool has_base;
    ast_type_ref type;
} fbe_enum_base;

typedef struct fbe_request_annot {
    bool has_response;
    ast_name response;
    ast_list rejects;
} fbe_request_annot;
}

%code provides {
int fbe_yylex(FBE_YYSTYPE *yylval, FBE_YYLTYPE *yylloc, yyscan_t scanner);
}

%code {
#include <ctype.h>
#include <stdio.h>
#include <string.h>

static void fbe_yyerror(FBE_YYLTYPE *loc, yyscan_t scanner, fbe_parse_ctx *ctx, const char *msg);
static int tracked_lex(FBE_YYSTYPE *val, FBE_YYLTYPE *loc, yyscan_t scanner, fbe_parse_ctx *ctx);

/* Every token goes through tracked_lex, which remembers where tokens end. */
#undef yylex
#define yylex(val, loc, scanner) tracked_lex(val, loc, scanner, ctx)

#define LOC(l) ((fbe_loc){ctx->source, (uint32_t)(l).first_line, (uint32_t)(l).first_column})

/* Out of memory inside an action: give up. */
#define CHECK(p)                  \
    do {                          \
        if (!(p)) {               \
            ctx->oom = true;      \
            ctx->stop = true;     \
            YYABORT;              \
        }                         \
    } while (0)

/* After an `error` production: stop at the error cap. */
#define RECOVERED()                                              \
    do {                                                         \
        if (ctx->stop || fbe_diags_full(ctx->diags)) {           \
            ctx->stop = true;                                    \
            YYABORT;                                             \
        }                                                        \
    } while (0)

#define NEW(type) ((type *)fbe_arena_zalloc(ctx->arena, sizeof(type)))

static ast_name mk_name(const fbe_parse_ctx *ctx, const char *text, FBE_YYLTYPE l)
{
    return (ast_name){text, LOC(l)};
}

static ast_type_ref mk_builtin(const fbe_parse_ctx *ctx, fbe_ir_kind kind, const char *text,
                               FBE_YYLTYPE l)
{
    return (ast_type_ref){kind, mk_name(ctx, text, l)};
}
}

%define api.pure full
%define api.prefix {fbe_yy}
%define api.token.prefix {TOK_}
%define parse.error custom
%locations
%param {yyscan_t scanner}
%parse-param {fbe_parse_ctx *ctx}
%expect 0

%union {
    const char *text;
    ast_name name;
    ast_type_ref type;
    ast_attrs attrs;
    ast_list list;
    bool flag;
    ast_field *field;
    ast_value *value;
    ast_enum_value *enum_value;
    ast_enum *enum_decl;
    ast_struct *struct_decl;
    fbe_struct_spec spec;
    fbe_request_annot request;
    fbe_enum_base enum_base;
    fbe_dotted dotted;
    ast_reject *reject;
}

%token END 0 "end of file"

%token <text> IDENT "identifier"
%token <text> INT_LIT "integer literal"
%token <text> FLOAT_LIT "floating-point literal"
%token <text> CHAR_LIT "character literal"
%token <text> STRING_LIT "string literal"

%token DOMAIN "'domain'" PACKAGE "'package'" OFFSET "'offset'" IMPORT "'import'"
%token VERSION "'version'" ENUM "'enum'" FLAGS "'flags'" STRUCT "'struct'"
%token MESSAGE "'message'" BASE "'base'" REQUEST "'request'" RESPONSE "'response'"
%token REJECT "'reject'"

%token BOOL "'bool'" BYTE "'byte'" BYTES "'bytes'" CHAR "'char'" WCHAR "'wchar'"
%token INT8 "'int8'" UINT8 "'uint8'" INT16 "'int16'" UINT16 "'uint16'"
%token INT32 "'int32'" UINT32 "'uint32'" INT64 "'int64'" UINT64 "'uint64'"
%token FLOAT "'float'" DOUBLE "'double'" DECIMAL "'decimal'" STRING "'string'"
%token TIMESTAMP "'timestamp'" UUID "'uuid'"

%token TRUE "'true'" FALSE "'false'" NULL "'null'" EPOCH "'epoch'" UTC "'utc'"
%token UUID0 "'uuid0'" UUID1 "'uuid1'" UUID4 "'uuid4'"

%token ATTR_ID "'[id]'" ATTR_KEY "'[key]'" ATTR_HIDDEN "'[hidden]'"
%token ATTR_DEPRECATED "'[deprecated]'"

%type <name> name dotted_name
%type <type> builtin_type base_type
%type <attrs> attrs
%type <flag> struct_kw
%type <list> or_names flags_names enum_values flags_values fields reject_list
%type <field> field field_type type_head
%type <value> default_value value
%type <enum_value> enum_value flags_value
%type <enum_decl> enum_decl flags_decl
%type <struct_decl> struct_decl struct_head
%type <spec> struct_spec type_spec
%type <request> request_annot response_annot reject_annot
%type <reject> reject_first
%type <enum_base> enum_base
%type <dotted> dotted_parts

%%

file
    : header decls
        { (void)yynerrs; /* counted by fbe_diags instead; keeps clang quiet */ }
    ;

header
    : domain package offset version imports
    | error
        { RECOVERED(); }
    ;

domain
    : %empty
    | DOMAIN dotted_name
        {
            ctx->file->has_domain = true;
            ctx->file->domain = $2;
        }
    ;

package
    : PACKAGE name
        {
            ctx->file->has_package = true;
            ctx->file->package = $2;
        }
    ;

offset
    : %empty
    | OFFSET INT_LIT
        {
            ctx->file->offset_text = $2;
            ctx->file->offset_loc = LOC(@2);
        }
    ;

version
    : %empty
    | VERSION FLOAT_LIT
        {
            ctx->file->version_text = $2;
            ctx->file->version_loc = LOC(@2);
        }
    ;

imports
    : %empty
    | imports IMPORT name
        {
            ast_name *n = NEW(ast_name);
            CHECK(n);
            *n = $3;
            CHECK(ast_list_push(ctx->arena, &ctx->file->imports, n));
        }
    ;

decls
    : %empty
    | decls decl
    ;

decl
    : enum_decl
        {
            ast_decl *d = NEW(ast_decl);
            CHECK(d);
            d->kind = AST_DECL_ENUM;
            d->enum_decl = $1;
            CHECK(ast_list_push(ctx->arena, &ctx->file->decls, d));
        }
    | flags_decl
        {
            ast_decl *d = NEW(ast_decl);
            CHECK(d);
            d->kind = AST_DECL_ENUM;
            d->enum_decl = $1;
            CHECK(ast_list_push(ctx->arena, &ctx->file->decls, d));
        }
    | struct_decl
        {
            ast_decl *d = NEW(ast_decl);
            CHECK(d);
            d->kind = AST_DECL_STRUCT;
            d->struct_decl = $1;
            CHECK(ast_list_push(ctx->arena, &ctx->file->decls, d));
        }
    | request_annot struct_decl
        {
            $2->is_request = true;
            $2->has_response = $1.has_response;
            $2->response = $1.response;
            $2->rejects = $1.rejects;
            ast_decl *d = NEW(ast_decl);
            CHECK(d);
            d->kind = AST_DECL_STRUCT;
            d->struct_decl = $2;
            CHECK(ast_list_push(ctx->arena, &ctx->file->decls, d));
        }
    | error ';'
        { RECOVERED(); }
    | error '}'
        { RECOVERED(); }
    ;

/* ---- attributes ---------------------------------------------------------------- */

attrs
    : %empty
        { $$ = (ast_attrs){false, false}; }
    | attrs ATTR_HIDDEN
        {
            if (!$1.hidden && !$1.deprecated)
                @$ = @2; /* not the empty rule's position */
            $$ = $1;
            $$.hidden = true;
        }
    | attrs ATTR_DEPRECATED
        {
            if (!$1.hidden && !$1.deprecated)
                @$ = @2;
            $$ = $1;
            $$.deprecated = true;
        }
    ;

/* `[request]` [ `[response(R)]` ] [ `[reject(*A, B)]` ] */
request_annot
    : '[' REQUEST ']'
        { $$ = (fbe_request_annot){0}; }
    | '[' REQUEST ']' response_annot
        { $$ = $4; }
    | '[' REQUEST ']' reject_annot
        { $$ = $4; }
    | '[' REQUEST ']' response_annot reject_annot
        { $$ = $5; $$.has_response = true; $$.response = $4.response; }
    ;

response_annot
    : '[' RESPONSE '(' dotted_name ')' ']'
        { $$ = (fbe_request_annot){0}; $$.has_response = true; $$.response = $4; }
    ;

reject_annot
    : '[' REJECT '(' reject_list ')' ']'
        { $$ = (fbe_request_annot){0}; $$.rejects = $4; }
    ;

reject_list
    : reject_first
        {
            $$ = (ast_list){0};
            CHECK(ast_list_push(ctx->arena, &$$, $1));
        }
    | reject_list ',' dotted_name
        {
            ast_reject *r = NEW(ast_reject);
            CHECK(r);
            r->name = $3;
            $$ = $1;
            CHECK(ast_list_push(ctx->arena, &$$, r));
        }
    ;

reject_first
    : dotted_name
        {
            $$ = NEW(ast_reject);
            CHECK($$);
            $$->name = $1;
        }
    | '*' dotted_name
        {
            $$ = NEW(ast_reject);
            CHECK($$);
            $$->name = $2;
            $$->global = true;
        }
    ;

/* ---- enums and flags --------------------------------------------------------- */

enum_decl
    : attrs ENUM name enum_base '{' enum_values '}'
        {
            $$ = NEW(ast_enum);
            CHECK($$);
            $$->attrs = $1;
            $$->name = $3;
            $$->has_base = $4.has_base;
            $$->base = $4.type;
            $$->loc = LOC(@2);
            $$->values = $6;
        }
    | attrs ENUM name enum_base '{' enum_values error '}'
        {
            RECOVERED();
            $$ = NEW(ast_enum);
            CHECK($$);
            $$->attrs = $1;
            $$->name = $3;
            $$->has_base = $4.has_base;
            $$->base = $4.type;
            $$->loc = LOC(@2);
            $$->values = $6;
        }
    | attrs ENUM error '{' enum_values '}'
        {
            RECOVERED();
            $$ = NEW(ast_enum);
            CHECK($$);
            $$->attrs = $1;
            $$->name = (ast_name){"", LOC(@2)};
            $$->loc = LOC(@2);
            $$->values = $5;
        }
    | attrs ENUM error '}'
        {
            RECOVERED();
            $$ = NEW(ast_enum);
            CHECK($$);
            $$->attrs = $1;
            $$->name = (ast_name){"", LOC(@2)};
            $$->loc = LOC(@2);
        }
    ;

flags_decl
    : attrs FLAGS name enum_base '{' flags_values '}'
        {
            $$ = NEW(ast_enum);
            CHECK($$);
            $$->is_flags = true;
            $$->attrs = $1;
            $$->name = $3;
            $$->has_base = $4.has_base;
            $$->base = $4.type;
            $$->loc = LOC(@2);
            $$->values = $6;
        }
    | attrs FLAGS name enum_base '{' flags_values error '}'
        {
            RECOVERED();
            $$ = NEW(ast_enum);
            CHECK($$);
            $$->is_flags = true;
            $$->attrs = $1;
            $$->name = $3;
            $$->has_base = $4.has_base;
            $$->base = $4.type;
            $$->loc = LOC(@2);
            $$->values = $6;
        }
    | attrs FLAGS error '{' flags_values '}'
        {
            RECOVERED();
            $$ = NEW(ast_enum);
            CHECK($$);
            $$->is_flags = true;
            $$->attrs = $1;
            $$->name = (ast_name){"", LOC(@2)};
            $$->loc = LOC(@2);
            $$->values = $5;
        }
    | attrs FLAGS error '}'
        {
            RECOVERED();
            $$ = NEW(ast_enum);
            CHECK($$);
            $$->is_flags = true;
            $$->attrs = $1;
            $$->name = (ast_name){"", LOC(@2)};
            $$->loc = LOC(@2);
        }
    ;

enum_base
    : %empty
        { $$ = (fbe_enum_base){0}; }
    | ':' builtin_type
        { $$.has_base = true; $$.type = $2; }
    ;

enum_values
    : %empty
        { $$ = (ast_list){0}; }
    | enum_values enum_value
        {
            $$ = $1;
            if ($2)
                CHECK(ast_list_push(ctx->arena, &$$, $2));
        }
    ;

enum_value
    : attrs name ';'
        {
            $$ = NEW(ast_enum_value);
            CHECK($$);
            $$->attrs = $1;
            $$->name = $2;
            $$->kind = AST_ENUM_VALUE_AUTO;
        }
    | attrs name '=' INT_LIT ';'
        {
            $$ = NEW(ast_enum_value);
            CHECK($$);
            $$->attrs = $1;
            $$->name = $2;
            $$->kind = AST_ENUM_VALUE_INT;
            $$->text = $4;
            $$->value_loc = LOC(@4);
        }
    | attrs name '=' CHAR_LIT ';'
        {
            $$ = NEW(ast_enum_value);
            CHECK($$);
            $$->attrs = $1;
            $$->name = $2;
            $$->kind = AST_ENUM_VALUE_CHAR;
            $$->text = $4;
            $$->value_loc = LOC(@4);
        }
    | attrs name '=' name ';'
        {
            $$ = NEW(ast_enum_value);
            CHECK($$);
            $$->attrs = $1;
            $$->name = $2;
            $$->kind = AST_ENUM_VALUE_NAMES;
            $$->value_loc = LOC(@4);
            ast_name *n = NEW(ast_name);
            CHECK(n);
            *n = $4;
            CHECK(ast_list_push(ctx->arena, &$$->names, n));
        }
    | error ';'
        { RECOVERED(); yyerrok; $$ = NULL; }
    ;

flags_values
    : %empty
        { $$ = (ast_list){0}; }
    | flags_values flags_value
        {
            $$ = $1;
            if ($2)
                CHECK(ast_list_push(ctx->arena, &$$, $2));
        }
    ;

flags_value
    : attrs name ';'
        {
            /* Grammatical, so the resolver can say what is missing. */
            $$ = NEW(ast_enum_value);
            CHECK($$);
            $$->attrs = $1;
            $$->name = $2;
            $$->kind = AST_ENUM_VALUE_AUTO;
        }
    | attrs name '=' INT_LIT ';'
        {
            $$ = NEW(ast_enum_value);
            CHECK($$);
            $$->attrs = $1;
            $$->name = $2;
            $$->kind = AST_ENUM_VALUE_INT;
            $$->text = $4;
            $$->value_loc = LOC(@4);
        }
    | attrs name '=' flags_names ';'
        {
            $$ = NEW(ast_enum_value);
            CHECK($$);
            $$->attrs = $1;
            $$->name = $2;
            $$->kind = AST_ENUM_VALUE_NAMES;
            $$->value_loc = LOC(@4);
            $$->names = $4;
        }
    | error ';'
        { RECOVERED(); yyerrok; $$ = NULL; }
    ;

flags_names
    : name
        {
            ast_name *n = NEW(ast_name);
            CHECK(n);
            *n = $1;
            $$ = (ast_list){0};
            CHECK(ast_list_push(ctx->arena, &$$, n));
        }
    | flags_names '|' name
        {
            ast_name *n = NEW(ast_name);
            CHECK(n);
            *n = $3;
            $$ = $1;
            CHECK(ast_list_push(ctx->arena, &$$, n));
        }
    ;

/* ---- structs and messages ---------------------------------------------------- */

struct_decl
    : struct_head '{' fields '}'
        {
            $$ = $1;
            $$->fields = $3;
            $$->end_loc = LOC(@4);
        }
    | struct_head '{' fields error '}'
        {
            RECOVERED();
            $$ = $1;
            $$->fields = $3;
            $$->end_loc = LOC(@5);
        }
    | attrs struct_kw error '{' fields '}'
        {
            RECOVERED();
            $$ = NEW(ast_struct);
            CHECK($$);
            $$->is_message = $2;
            $$->attrs = $1;
            $$->name = (ast_name){"", LOC(@2)};
            $$->loc = LOC(@2);
            $$->fields = $5;
            $$->end_loc = LOC(@6);
        }
    | attrs struct_kw error '}'
        {
            RECOVERED();
            $$ = NEW(ast_struct);
            CHECK($$);
            $$->is_message = $2;
            $$->attrs = $1;
            $$->name = (ast_name){"", LOC(@2)};
            $$->loc = LOC(@2);
            $$->end_loc = LOC(@4);
        }
    ;

struct_head
    : attrs struct_kw name struct_spec
        {
            $$ = NEW(ast_struct);
            CHECK($$);
            $$->is_message = $2;
            $$->attrs = $1;
            $$->name = $3;
            $$->loc = LOC(@2);
            $$->type_spec = $4.spec;
            $$->type_number_text = $4.number_text;
            $$->type_number_loc = $4.number_loc;
            $$->has_base = $4.has_base;
            $$->base = $4.base;
        }
    ;

struct_kw
    : STRUCT  { $$ = false; }
    | MESSAGE { $$ = true; }
    ;

struct_spec
    : type_spec
        { $$ = $1; }
    | type_spec ':' dotted_name
        { $$ = $1; $$.has_base = true; $$.base = $3; }
    | '(' BASE ')' ':' dotted_name
        {
            $$ = (fbe_struct_spec){0};
            $$.spec = AST_TYPE_SPEC_BASE;
            $$.has_base = true;
            $$.base = $5;
        }
    ;

type_spec
    : %empty
        { $$ = (fbe_struct_spec){0}; }
    | '(' '+' INT_LIT ')'
        {
            $$ = (fbe_struct_spec){0};
            $$.spec = AST_TYPE_SPEC_PLUS;
            $$.number_text = $3;
            $$.number_loc = LOC(@3);
        }
    | '(' INT_LIT ')'
        {
            $$ = (fbe_struct_spec){0};
            $$.spec = AST_TYPE_SPEC_FIXED;
            $$.number_text = $2;
            $$.number_loc = LOC(@2);
        }
    ;

fields
    : %empty
        { $$ = (ast_list){0}; }
    | fields field
        {
            $$ = $1;
            if ($2)
                CHECK(ast_list_push(ctx->arena, &$$, $2));
        }
    ;

field
    : attrs field_type dotted_name default_value ';'
        {
            $$ = $2;
            $$->attrs = $1;
            $$->name = $3;
            $$->default_value = $4;
            if ($1.hidden || $1.deprecated)
                $$->loc = LOC(@1);
        }
    | attrs ATTR_KEY field_type dotted_name default_value ';'
        {
            $$ = $3;
            $$->attrs = $1;
            $$->is_key = true;
            $$->name = $4;
            $$->default_value = $5;
            $$->loc = ($1.hidden || $1.deprecated) ? LOC(@1) : LOC(@2);
        }
    | attrs field_type ATTR_ID default_value ';'
        {
            $$ = $2;
            $$->attrs = $1;
            $$->is_id = true;
            $$->name = (ast_name){"id", LOC(@3)};
            $$->default_value = $4;
            if ($1.hidden || $1.deprecated)
                $$->loc = LOC(@1);
        }
    | error ';'
        { RECOVERED(); yyerrok; $$ = NULL; }
    ;

/* A new field with its type filled in; loc is the type's location. */
field_type
    : type_head
        { $$ = $1; }
    | base_type '~'
        {
            $$ = NEW(ast_field);
            CHECK($$);
            $$->type = $1;
            $$->form = AST_FORM_RESET;
            $$->loc = LOC(@1);
        }
    | base_type '!'
        {
            $$ = NEW(ast_field);
            CHECK($$);
            $$->type = $1;
            $$->form = AST_FORM_SET;
            $$->loc = LOC(@1);
        }
    | type_head '[' INT_LIT ']'
        {
            $$ = $1;
            $$->form = AST_FORM_ARRAY;
            $$->array_size_text = $3;
            $$->array_size_loc = LOC(@3);
        }
    | type_head '[' ']'
        { $$ = $1; $$->form = AST_FORM_VECTOR; }
    | type_head '(' ')'
        { $$ = $1; $$->form = AST_FORM_LIST; }
    | type_head '<' base_type '>'
        { $$ = $1; $$->form = AST_FORM_MAP; $$->key = $3; }
    | type_head '{' base_type '}'
        { $$ = $1; $$->form = AST_FORM_HASH; $$->key = $3; }
    ;

/* T or T? */
type_head
    : base_type
        {
            $$ = NEW(ast_field);
            CHECK($$);
            $$->type = $1;
            $$->form = AST_FORM_PLAIN;
            $$->loc = LOC(@1);
        }
    | base_type '?'
        {
            $$ = NEW(ast_field);
            CHECK($$);
            $$->type = $1;
            $$->optional = true;
            $$->form = AST_FORM_PLAIN;
            $$->loc = LOC(@1);
        }
    ;

base_type
    : builtin_type
        { $$ = $1; }
    | dotted_name
        { $$ = (ast_type_ref){FBE_IR_STRUCT, $1}; }
    ;

builtin_type
    : BOOL      { $$ = mk_builtin(ctx, FBE_IR_BOOL, "bool", @1); }
    | BYTE      { $$ = mk_builtin(ctx, FBE_IR_BYTE, "byte", @1); }
    | BYTES     { $$ = mk_builtin(ctx, FBE_IR_BYTES, "bytes", @1); }
    | CHAR      { $$ = mk_builtin(ctx, FBE_IR_CHAR, "char", @1); }
    | WCHAR     { $$ = mk_builtin(ctx, FBE_IR_WCHAR, "wchar", @1); }
    | INT8      { $$ = mk_builtin(ctx, FBE_IR_INT8, "int8", @1); }
    | UINT8     { $$ = mk_builtin(ctx, FBE_IR_UINT8, "uint8", @1); }
    | INT16     { $$ = mk_builtin(ctx, FBE_IR_INT16, "int16", @1); }
    | UINT16    { $$ = mk_builtin(ctx, FBE_IR_UINT16, "uint16", @1); }
    | INT32     { $$ = mk_builtin(ctx, FBE_IR_INT32, "int32", @1); }
    | UINT32    { $$ = mk_builtin(ctx, FBE_IR_UINT32, "uint32", @1); }
    | INT64     { $$ = mk_builtin(ctx, FBE_IR_INT64, "int64", @1); }
    | UINT64    { $$ = mk_builtin(ctx, FBE_IR_UINT64, "uint64", @1); }
    | FLOAT     { $$ = mk_builtin(ctx, FBE_IR_FLOAT, "float", @1); }
    | DOUBLE    { $$ = mk_builtin(ctx, FBE_IR_DOUBLE, "double", @1); }
    | DECIMAL   { $$ = mk_builtin(ctx, FBE_IR_DECIMAL, "decimal", @1); }
    | STRING    { $$ = mk_builtin(ctx, FBE_IR_STRING, "string", @1); }
    | TIMESTAMP { $$ = mk_builtin(ctx, FBE_IR_TIMESTAMP, "timestamp", @1); }
    | UUID      { $$ = mk_builtin(ctx, FBE_IR_UUID, "uuid", @1); }
    ;

/* ---- default values ---------------------------------------------------------- */

default_value
    : %empty
        { $$ = NULL; }
    | '=' value or_names
        { $$ = $2; $$->or_names = $3; }
    ;

value
    : TRUE       { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_TRUE; $$->loc = LOC(@1); }
    | FALSE      { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_FALSE; $$->loc = LOC(@1); }
    | NULL       { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_NULL; $$->loc = LOC(@1); }
    | EPOCH      { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_EPOCH; $$->loc = LOC(@1); }
    | UTC        { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_UTC; $$->loc = LOC(@1); }
    | UUID0      { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_UUID0; $$->loc = LOC(@1); }
    | UUID1      { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_UUID1; $$->loc = LOC(@1); }
    | UUID4      { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_UUID4; $$->loc = LOC(@1); }
    | CHAR_LIT
        { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_CHAR; $$->text = $1; $$->loc = LOC(@1); }
    | INT_LIT
        { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_INT; $$->text = $1; $$->loc = LOC(@1); }
    | FLOAT_LIT
        { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_FLOAT; $$->text = $1; $$->loc = LOC(@1); }
    | STRING_LIT
        { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_STRING; $$->text = $1; $$->loc = LOC(@1); }
    | dotted_name
        { $$ = NEW(ast_value); CHECK($$); $$->kind = AST_VALUE_NAME; $$->name = $1; $$->loc = LOC(@1); }
    ;

or_names
    : %empty
        { $$ = (ast_list){0}; }
    | or_names '|' dotted_name
        {
            ast_name *n = NEW(ast_name);
            CHECK(n);
            *n = $3;
            $$ = $1;
            CHECK(ast_list_push(ctx->arena, &$$, n));
        }
    ;

/* ---- names ------------------------------------------------------------------- */

/* Built in a growing buffer so that a long dotted chain stays linear. */
dotted_name
    : dotted_parts
        { $$ = (ast_name){$1.text, $1.loc}; }
    ;

dotted_parts
    : name
        {
            size_t len = strlen($1.text);
            $$ = (fbe_dotted){(char *)$1.text, len, 0, $1.loc};
        }
    | dotted_parts '.' name
        {
            $$ = $1;
            size_t add = strlen($3.text);
            CHECK(add < SIZE_MAX / 4 && $$.len < SIZE_MAX / 4);
            size_t need = $$.len + 1 + add + 1;
            if (need > $$.cap) {
                size_t cap = need * 2;
                char *buf = fbe_arena_alloc(ctx->arena, cap);
                CHECK(buf);
                memcpy(buf, $$.text, $$.len);
                $$.text = buf;
                $$.cap = cap;
            }
            $$.text[$$.len] = '.';
            memcpy($$.text + $$.len + 1, $3.text, add + 1);
            $$.len += 1 + add;
        }
    ;

name
    : IDENT    { $$ = mk_name(ctx, $1, @1); }
    | DOMAIN   { $$ = mk_name(ctx, "domain", @1); }
    | PACKAGE  { $$ = mk_name(ctx, "package", @1); }
    | OFFSET   { $$ = mk_name(ctx, "offset", @1); }
    | IMPORT   { $$ = mk_name(ctx, "import", @1); }
    | VERSION  { $$ = mk_name(ctx, "version", @1); }
    | REQUEST  { $$ = mk_name(ctx, "request", @1); }
    | RESPONSE { $$ = mk_name(ctx, "response", @1); }
    | REJECT   { $$ = mk_name(ctx, "reject", @1); }
    ;

%%

static void fbe_yyerror(FBE_YYLTYPE *loc, yyscan_t scanner, fbe_parse_ctx *ctx, const char *msg)
{
    (void)scanner;
    if (ctx->stop)
        return;
    fbe_error(ctx->diags, LOC(*loc), "%s", msg);
}

static int tracked_lex(FBE_YYSTYPE *val, FBE_YYLTYPE *loc, yyscan_t scanner, fbe_parse_ctx *ctx)
{
    int token = fbe_yylex(val, loc, scanner);
    ctx->prev_end_line = ctx->end_line;
    ctx->prev_end_col = ctx->end_col;
    ctx->prev_body = ctx->body;
    ctx->end_line = (uint32_t)loc->last_line;
    ctx->end_col = (uint32_t)loc->last_column;
    /* bodies do not nest: the keyword before a '{' says what the body holds */
    switch (token) {
    case TOK_STRUCT:
    case TOK_MESSAGE: ctx->pending_body = FBE_BODY_FIELDS; break;
    case TOK_ENUM: ctx->pending_body = FBE_BODY_ENUM; break;
    case TOK_FLAGS: ctx->pending_body = FBE_BODY_FLAGS; break;
    case '{': ctx->body = ctx->pending_body; break;
    case '}': ctx->body = ctx->pending_body = FBE_BODY_NONE; break;
    default: break;
    }
    return token;
}

/* A missing punctuation token is reported like gcc and clang do: "expected ';'
 * after field" right after the previous token, where it has to be typed, rather
 * than at the token that follows (often on the next line). True if reported:
 * when it is the one token that fits (';' also when '=' would, as in an enum
 * value) and a token came before. */
static bool report_expected(fbe_parse_ctx *ctx, const yysymbol_kind_t *expected, int n)
{
    if (ctx->prev_end_line == 0 || n < 1 || n > 2)
        return false;
    const char *name = yysymbol_name(expected[0]);
    if (n == 2) {
        const char *other = yysymbol_name(expected[1]);
        if (strcmp(name, "'='") == 0)
            name = other;
        else if (strcmp(other, "'='") != 0)
            return false;
        if (strcmp(name, "';'") != 0)
            return false;
    }
    /* punctuation only: a missing name or literal belongs to the next token */
    if (strlen(name) != 3 || name[0] != '\'' || isalnum((unsigned char)name[1]))
        return false;
    const char *after = "";
    if (strcmp(name, "';'") == 0) {
        switch (ctx->prev_body) {
        case FBE_BODY_FIELDS: after = " after field"; break;
        case FBE_BODY_ENUM: after = " after enum value"; break;
        case FBE_BODY_FLAGS: after = " after flags value"; break;
        default: break;
        }
    }
    fbe_loc at = {ctx->source, ctx->prev_end_line, ctx->prev_end_col};
    fbe_error(ctx->diags, at, "expected %s%s", name, after);
    return true;
}

static bool is_name_keyword(yysymbol_kind_t sym)
{
    switch (sym) {
    case YYSYMBOL_DOMAIN:
    case YYSYMBOL_PACKAGE:
    case YYSYMBOL_OFFSET:
    case YYSYMBOL_IMPORT:
    case YYSYMBOL_VERSION:
    case YYSYMBOL_REQUEST:
    case YYSYMBOL_RESPONSE:
    case YYSYMBOL_REJECT:
        return true;
    default:
        return false;
    }
}

/* bison's "detailed" wording, with the name keywords folded into "identifier". */
static int yyreport_syntax_error(const yypcontext_t *yyctx, yyscan_t scanner, fbe_parse_ctx *ctx)
{
    (void)scanner;
    if (ctx->stop)
        return 0;
    if (fbe_diags_full(ctx->diags)) {
        ctx->stop = true;
        return 0;
    }
    enum { MAX_EXPECTED = 4 };
    yysymbol_kind_t expected[YYNTOKENS];
    int n = yypcontext_expected_tokens(yyctx, expected, YYNTOKENS);
    bool ident = false;
    for (int i = 0; i < n; i++)
        if (expected[i] == YYSYMBOL_IDENT)
            ident = true;
    const char *names[MAX_EXPECTED];
    int count = 0;
    for (int i = 0; i < n; i++) {
        if (ident && is_name_keyword(expected[i]))
            continue;
        if (count == MAX_EXPECTED) {
            count = 0;
            break;
        }
        names[count++] = yysymbol_name(expected[i]);
    }

    if (count == n && report_expected(ctx, expected, n))
        return 0;
    char msg[512];
    size_t len = 0;
    yysymbol_kind_t token = yypcontext_token(yyctx);
    if (token == YYSYMBOL_YYEMPTY)
        len += (size_t)snprintf(msg, sizeof msg, "syntax error");
    else
        len += (size_t)snprintf(msg, sizeof msg, "syntax error, unexpected %s",
                                yysymbol_name(token));
    for (int i = 0; i < count && len < sizeof msg; i++)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s",
                                i == 0 ? ", expecting " : " or ", names[i]);
    fbe_error(ctx->diags, LOC(*yypcontext_location(yyctx)), "%s", msg);
    return 0;
}
