/* Syntax tree of one .fbe file, as the parser builds it: names unresolved,
 * literals kept as their source text. Everything lives in the parse arena. */
#ifndef FBE_FRONTEND_AST_H
#define FBE_FRONTEND_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fbe/arena.h"
#include "fbe/ir.h"
#include "source.h"

/* A growable array of pointers allocated from an arena. */
typedef struct ast_list {
    void **items;
    size_t count;
    size_t capacity;
} ast_list;

bool ast_list_push(fbe_arena *arena, ast_list *list, void *item);

/* A name as written, possibly dotted ("proto.Order"), with the location of its
 * first character. */
typedef struct ast_name {
    const char *text;
    fbe_loc loc;
} ast_name;

typedef struct ast_attrs {
    bool hidden;
    bool deprecated;
} ast_attrs;

/* A type name in a field: either a builtin (kind is a scalar kind, STRING or BYTES)
 * or a name to resolve (kind == FBE_IR_STRUCT as "unresolved named type"). */
typedef struct ast_type_ref {
    fbe_ir_kind kind;   /* builtin kind, or FBE_IR_STRUCT for a named type */
    ast_name name;      /* the spelling (also set for builtins, e.g. "int32") */
} ast_type_ref;

typedef enum ast_field_form {
    AST_FORM_PLAIN,   /* T   */
    AST_FORM_RESET,   /* T~  */
    AST_FORM_ARRAY,   /* T[N] */
    AST_FORM_VECTOR,  /* T[] */
    AST_FORM_LIST,    /* T() */
    AST_FORM_SET,     /* T!  */
    AST_FORM_MAP,     /* V<K> */
    AST_FORM_HASH     /* V{K} */
} ast_field_form;

typedef enum ast_value_kind {
    AST_VALUE_TRUE,
    AST_VALUE_FALSE,
    AST_VALUE_NULL,
    AST_VALUE_EPOCH,
    AST_VALUE_UTC,
    AST_VALUE_UUID0,
    AST_VALUE_UUID1,
    AST_VALUE_UUID4,
    AST_VALUE_CHAR,   /* text: the token with its quotes, e.g. '\n' */
    AST_VALUE_INT,    /* text: e.g. "-0x10", "010" */
    AST_VALUE_FLOAT,  /* text: e.g. "-123.456e+123" */
    AST_VALUE_STRING, /* text: the token with its quotes, escapes not applied */
    AST_VALUE_NAME    /* name: dotted reference, e.g. "State.initialized", "max" */
} ast_value_kind;

/* A default value: `value { "|" dotted_name }`. */
typedef struct ast_value {
    ast_value_kind kind;
    const char *text;   /* literal token text (CHAR, INT, FLOAT, STRING) */
    ast_name name;      /* NAME */
    fbe_loc loc;        /* first character of the value */
    ast_list or_names;  /* ast_name*: the names after each `|` */
} ast_value;

typedef struct ast_field {
    ast_attrs attrs;
    bool is_key;          /* [key] */
    bool is_id;           /* `T [id]`: name is "id" */
    ast_type_ref type;    /* T, or the value type V of a map/hash */
    bool optional;        /* T? (also T?[N], T?[], V?<K>, ...) */
    ast_field_form form;
    const char *array_size_text; /* AST_FORM_ARRAY: the INT token */
    fbe_loc array_size_loc;
    ast_type_ref key;     /* AST_FORM_MAP, AST_FORM_HASH */
    ast_name name;        /* for [id] fields: "id" at the [id] token */
    ast_value *default_value; /* NULL if none */
    fbe_loc loc;          /* first token of the field */
} ast_field;

typedef enum ast_enum_value_kind {
    AST_ENUM_VALUE_AUTO,  /* no `=` */
    AST_ENUM_VALUE_INT,   /* = INT */
    AST_ENUM_VALUE_CHAR,  /* = CHAR */
    AST_ENUM_VALUE_NAMES  /* = name (enums: exactly one; flags: a | b | ...) */
} ast_enum_value_kind;

typedef struct ast_enum_value {
    ast_attrs attrs;
    ast_name name;
    ast_enum_value_kind kind;
    const char *text;     /* INT/CHAR token text */
    fbe_loc value_loc;    /* location of the value after `=` */
    ast_list names;       /* ast_name*: AST_ENUM_VALUE_NAMES */
} ast_enum_value;

typedef struct ast_enum {
    bool is_flags;
    ast_attrs attrs;
    ast_name name;
    bool has_base;
    ast_type_ref base;    /* valid when has_base (kind may be any builtin; the
                             resolver reports invalid base types) */
    ast_list values;      /* ast_enum_value* */
    fbe_loc loc;          /* the `enum`/`flags` keyword */
} ast_enum;

typedef enum ast_type_spec {
    AST_TYPE_SPEC_NONE,   /* no (...) */
    AST_TYPE_SPEC_PLUS,   /* (+N) */
    AST_TYPE_SPEC_FIXED,  /* (N) */
    AST_TYPE_SPEC_BASE    /* (base) */
} ast_type_spec;

typedef struct ast_reject {
    ast_name name;
    bool global;          /* written *X */
} ast_reject;

typedef struct ast_struct {
    bool is_message;
    ast_attrs attrs;
    ast_name name;
    ast_type_spec type_spec;
    const char *type_number_text; /* (+N)/(N): the INT token (may be negative) */
    fbe_loc type_number_loc;
    bool has_base;
    ast_name base;
    bool is_request;
    bool has_response;
    ast_name response;
    ast_list rejects;     /* ast_reject* */
    ast_list fields;      /* ast_field* */
    fbe_loc loc;          /* the `struct`/`message` keyword */
    fbe_loc end_loc;      /* the closing brace */
} ast_struct;

typedef enum ast_decl_kind {
    AST_DECL_ENUM,
    AST_DECL_STRUCT
} ast_decl_kind;

/* Declarations in source order. */
typedef struct ast_decl {
    ast_decl_kind kind;
    ast_enum *enum_decl;     /* enums and flags */
    ast_struct *struct_decl; /* structs and messages */
} ast_decl;

typedef struct ast_file {
    const fbe_source *source;
    bool has_domain;
    ast_name domain;
    bool has_package;
    ast_name package;
    const char *offset_text;  /* NULL if no `offset` */
    fbe_loc offset_loc;
    const char *version_text; /* NULL if no `version` */
    fbe_loc version_loc;
    ast_list imports;         /* ast_name* */
    ast_list decls;           /* ast_decl* */
} ast_file;

/* Parses one source. Syntax errors are reported through `diags`; the parser recovers
 * at declaration and field boundaries and keeps going. Returns NULL only when
 * memory ran out; check fbe_diags_error_count() for errors. */
struct fbe_diags;
ast_file *fbe_parse(const fbe_source *source, fbe_arena *arena, struct fbe_diags *diags);

#endif
