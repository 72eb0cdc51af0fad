/* The decode budget (issue 12, item 4; docs/codec.md "Limits"): deserialize in
 * every backend and JSON read may add at most 64 x their input + 1 MiB to the
 * arena unless fbe_decode_options / fbe_json_read_options say otherwise.
 *
 *   - the reproducers, built here: frames whose structs are an older
 *     writer's 8-byte bodies (a vector of them, optional ones), and JSON of many
 *     `{}` into a 64 KiB struct: FBE_MEMORY_LIMIT, exact, from the interpreter
 *     and the JIT alike, with the same arena afterwards; raising the budget
 *     decodes them;
 *   - every type of the four golden schemas, as a frame of older-writer bodies
 *     with every collection repeated: the arena's high-water mark never passes
 *     the budget, default or tight, and the JIT agrees with the interpreter;
 *   - the budget is not lost to chunk granularity, and the arena's own limit
 *     still reports NOMEM;
 *   - sinks (fbe_buffer_init_sink) change no output byte of fbe_print and
 *     fbe_json_write;
 *   - fbec decode/convert/encode: the budget, --max-memory, the messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fbe/codec.h"
#include "fbe/jit.h"
#include "fbe/json.h"
#include "test_cmd.h"
#include "test_util.h"

/* ---- frames of older-writer bodies --------------------------------------------- */

typedef struct frame {
    uint8_t *data;
    size_t size, cap;
    size_t max;        /* collections stop growing the frame past this */
    uint32_t repeat;   /* elements per collection */
} frame;

static size_t room_for(frame *f, size_t n)
{
    if (f->size + n > f->cap) {
        while (f->size + n > f->cap)
            f->cap = f->cap ? f->cap * 2 : 4096;
        f->data = realloc(f->data, f->cap);
        assert_non_null(f->data);
    }
    memset(f->data + f->size, 0, n);
    size_t at = f->size;
    f->size += n;
    return at;
}

/* An older writer's body of S: the header only, every field left to its default. */
static uint32_t older_body(frame *f, const fbe_ir_struct *st, size_t base)
{
    size_t body = room_for(f, 8);
    wr_u32(f->data + body, 8);
    wr_u32(f->data + body + 4, st->type_number);
    return (uint32_t)(body - base);
}

/* A value of t at pos (zeroed already; offsets relative to base: the body or
 * optional slot it is in): structs are
 * older bodies, optionals present, collections `repeat` elements long. */
static void put_value(frame *f, const fbe_ir_type *t, size_t pos, size_t base)
{
    switch (t->kind) {
    case FBE_IR_STRUCT: {
        uint32_t off = older_body(f, t->struct_type, base);
        wr_u32(f->data + pos, off);
        return;
    }
    case FBE_IR_OPTIONAL: {
        size_t slot = room_for(f, t->elem->std_inline_size);
        f->data[pos] = 1;
        wr_u32(f->data + pos + 1, (uint32_t)(slot - base));
        put_value(f, t->elem, slot, slot);
        return;
    }
    case FBE_IR_ARRAY:
        for (uint32_t i = 0; i < t->array_len; i++)
            put_value(f, t->elem, pos + (size_t)i * t->elem->std_inline_size, base);
        return;
    case FBE_IR_VECTOR: case FBE_IR_LIST: case FBE_IR_SET: case FBE_IR_MAP: case FBE_IR_HASH: {
        uint32_t n = f->size < f->max ? f->repeat : 0;
        if (!n)
            return; /* offset 0: empty */
        uint32_t k = t->key ? t->key->std_inline_size : 0, each = k + t->elem->std_inline_size;
        size_t blk = room_for(f, 4 + (size_t)n * each);
        wr_u32(f->data + blk, n);
        wr_u32(f->data + pos, (uint32_t)(blk - base));
        for (uint32_t i = 0; i < n; i++) {
            size_t at = blk + 4 + (size_t)i * each;
            if (t->key)
                put_value(f, t->key, at, base);
            put_value(f, t->elem, at + k, base);
        }
        return;
    }
    default:
        return; /* zero: scalars, empty strings and bytes */
    }
}

/* A standard frame whose root is a whole body of st (so that its collections are
 * there) and everything below older-writer bodies. */
static frame build_frame(const fbe_ir_struct *st, uint32_t repeat, size_t max)
{
    frame f = {.repeat = repeat, .max = max};
    room_for(&f, 8);
    size_t body = room_for(&f, st->std_body_size);
    wr_u32(f.data + 4, (uint32_t)body);
    wr_u32(f.data + body, st->std_body_size);
    wr_u32(f.data + body + 4, st->type_number);
    for (size_t i = 0; i < st->field_count; i++)
        put_value(&f, st->fields[i].type, body + st->fields[i].std_offset, body);
    wr_u32(f.data, (uint32_t)f.size);
    return f;
}

/* ---- decoding under a budget ---------------------------------------------------- */

typedef struct outcome {
    fbe_status status;
    size_t total; /* the arena's high-water mark: it never frees during a call */
} outcome;

static outcome decode(const fbe_type *t, fbe_model m, const uint8_t *data, size_t size,
                      size_t max_memory, size_t arena_limit)
{
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    arena.limit = arena_limit;
    void *value = malloc(t->ir->host_size);
    assert_non_null(value);
    fbe_decode_options o = {.arena = &arena, .max_memory = max_memory};
    outcome r = {fbe_deserialize(t, m, data, size, value, &o, NULL), 0};
    r.total = arena.total;
    free(value);
    fbe_arena_free(&arena);
    return r;
}

static size_t bound(size_t input)
{
    return FBE_DECODE_MEMORY_FACTOR * input + FBE_DECODE_MEMORY_BASE;
}

/* The JIT codec of a schema, or NULL (the test then covers the interpreter only). */
static fbe_codec *jit_codec(const fbe_schema *s)
{
    if (!fbe_jit_available())
        return NULL;
    fbe_jit_options jo = {.require_native = true};
    fbe_status st;
    fbe_codec *c = fbe_jit_compile(s, &jo, &st);
    assert_non_null(c);
    return c;
}

static const char amp_schema[] = "package amp\n"
                                 "struct Big { byte[65536] b; }\n"
                                 "struct Holder { Big[] items; Big?[] maybe; }\n";

/* The frame: older-writer bodies, 64 KiB each once decoded. */
static void test_older_bodies(void **state)
{
    (void)state;
    fbe_schema *s = load_text_ok(amp_schema);
    fbe_codec *codecs[2] = {fbe_interp_create(s, NULL, NULL), jit_codec(s)};
    frame f = build_frame(fbe_codec_type(codecs[0], "amp.Holder")->ir, 300, SIZE_MAX);
    /* 300 x (4 + 8) + 300 x (5 + 4 + 8) bytes for 600 x 64 KiB of host structs */
    assert_int_equal(f.size, 8 + 16 + 2 * 4 + 300 * 12 + 300 * 17);
    outcome first = {0};
    for (int b = 0; b < 2 && codecs[b]; b++) {
        const fbe_type *t = fbe_codec_type(codecs[b], "amp.Holder");
        assert_int_equal(fbe_verify(t, FBE_STANDARD, f.data, f.size, NULL), FBE_OK);
        outcome r = decode(t, FBE_STANDARD, f.data, f.size, 0, 0);
        assert_int_equal(r.status, FBE_MEMORY_LIMIT);
        assert_true(r.total <= bound(f.size));
        if (b == 0)
            first = r;
        /* the same allocations in every backend: the same arena afterwards */
        assert_int_equal(r.total, first.total);
        /* lowered: fails earlier, never past it */
        r = decode(t, FBE_STANDARD, f.data, f.size, 100000, 0);
        assert_int_equal(r.status, FBE_MEMORY_LIMIT);
        assert_true(r.total <= 100000);
        /* raised: decodes, every element a whole struct with its defaults */
        fbe_arena arena;
        fbe_arena_init(&arena, NULL, NULL);
        struct {
            fbe_seq items, maybe;
        } h;
        assert_int_equal(t->ir->host_size, sizeof h);
        fbe_decode_options o = {.arena = &arena, .max_memory = 64u << 20};
        assert_int_equal(fbe_deserialize(t, FBE_STANDARD, f.data, f.size, &h, &o, NULL), FBE_OK);
        assert_int_equal(h.items.size, 300);
        assert_int_equal(h.maybe.size, 300);
        const uint8_t *last = (const uint8_t *)h.items.data + 299 * 65536;
        assert_int_equal(last[65535], 0);
        assert_true(arena.total <= 64u << 20);
        assert_true(arena.total >= 600 * 65536);
        fbe_arena_free(&arena);
        /* no budget: only the arena's own limit, which is NOMEM */
        r = decode(t, FBE_STANDARD, f.data, f.size, SIZE_MAX, 8u << 20);
        assert_int_equal(r.status, FBE_NOMEM);
        r = decode(t, FBE_STANDARD, f.data, f.size, SIZE_MAX, 0);
        assert_int_equal(r.status, FBE_OK);
    }
    assert_string_equal(fbe_status_name(FBE_MEMORY_LIMIT), "MEMORY_LIMIT");
    assert_string_equal(fbe_strerror(FBE_MEMORY_LIMIT),
                        "decoding needs more memory than the limit for this input allows");
    free(f.data);
    fbe_codec_free(codecs[1]);
    fbe_codec_free(codecs[0]);
    fbe_schema_free(s);
}

/* The final model has no older writers; its 1-byte absent optionals still become
 * 8-byte pointers, so a tight budget is what stops them. */
static void test_final(void **state)
{
    (void)state;
    fbe_schema *s = load_text_ok(amp_schema);
    fbe_codec *codecs[2] = {fbe_interp_create(s, NULL, NULL), jit_codec(s)};
    enum { N = 100000 };
    size_t size = 8 + 4 + 4 + N;
    uint8_t *data = calloc(1, size);
    assert_non_null(data);
    wr_u32(data, (uint32_t)size);
    wr_u32(data + 4, fbe_codec_type(codecs[0], "amp.Holder")->ir->type_number);
    wr_u32(data + 12, N); /* items: 0 elements, maybe: N absent */
    outcome first = {0};
    for (int b = 0; b < 2 && codecs[b]; b++) {
        const fbe_type *t = fbe_codec_type(codecs[b], "amp.Holder");
        outcome r = decode(t, FBE_FINAL, data, size, 0, 0);
        assert_int_equal(r.status, FBE_OK);
        assert_true(r.total <= bound(size));
        r = decode(t, FBE_FINAL, data, size, 4 * N, 0);
        assert_int_equal(r.status, FBE_MEMORY_LIMIT);
        assert_true(r.total <= 4 * N);
        if (b == 0)
            first = r;
        assert_int_equal(r.total, first.total);
    }
    free(data);
    fbe_codec_free(codecs[1]);
    fbe_codec_free(codecs[0]);
    fbe_schema_free(s);
}

/* JSON of many `{}` into a 64 KiB struct: refused before allocating it all. */
static void test_json(void **state)
{
    (void)state;
    fbe_schema *s = load_text_ok(amp_schema);
    fbe_codec *c = fbe_interp_create(s, NULL, NULL);
    const fbe_ir_struct *holder = fbe_codec_type(c, "amp.Holder")->ir;
    enum { N = 65537 };
    size_t cap = 16 + 3 * N, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)sprintf(text, "{\"items\":[");
    for (size_t i = 0; i < N; i++)
        len += (size_t)sprintf(text + len, "%s{}", i ? "," : "");
    len += (size_t)sprintf(text + len, "]}");
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    void *value = malloc(holder->host_size);
    fbe_json_read_options o = {.arena = &arena};
    fbe_json_error err;
    assert_int_equal(fbe_json_read(NULL, holder, text, len, value, &o, &err), FBE_MEMORY_LIMIT);
    assert_int_equal(err.status, FBE_MEMORY_LIMIT);
    char want[200];
    snprintf(want, sizeof want,
             "$.items: the value needs more memory than the limit for %zu bytes of JSON allows "
             "(max_memory)", len);
    assert_string_equal(err.message, want);
    assert_true(arena.total <= bound(len));
    fbe_arena_free(&arena);
    /* raised, a smaller document reads */
    fbe_arena_init(&arena, NULL, NULL);
    o.max_memory = 256u << 20;
    assert_int_equal(fbe_json_read(NULL, holder, text, 3 * 1000 + 10, value, &o, &err),
                     FBE_INVALID_ARGUMENT); /* cut inside the array: not JSON */
    len = (size_t)sprintf(text, "{\"items\":[{},{},{}]}");
    assert_int_equal(fbe_json_read(NULL, holder, text, len, value, &o, &err), FBE_OK);
    assert_int_equal(((fbe_seq *)value)->size, 3);
    fbe_arena_free(&arena);
    free(value);
    free(text);
    fbe_codec_free(c);
    fbe_schema_free(s);
}

/* Every golden type: older-writer bodies, every collection repeated; the peak is
 * within the budget, default or tight, and the backends agree. */
static void test_golden_types(void **state)
{
    (void)state;
    static const char *const schemas[] = {"proto", "protoex", "test", "enums"};
    size_t types = 0, limited = 0;
    double worst = 0;
    for (size_t k = 0; k < sizeof schemas / sizeof *schemas; k++) {
        fbe_schema *s = load_golden(schemas[k]);
        fbe_codec *codecs[2] = {fbe_interp_create(s, NULL, NULL), jit_codec(s)};
        for (size_t i = 0; i < fbe_codec_type_count(codecs[0]); i++) {
            const fbe_type *t = fbe_codec_type_at(codecs[0], i);
            for (uint32_t repeat = 1; repeat <= 256; repeat *= 16) {
                frame f = build_frame(t->ir, repeat, 256 * 1024);
                fbe_verify_info info;
                assert_int_equal(fbe_verify(t, FBE_STANDARD, f.data, f.size, &info), FBE_OK);
                size_t tight = FBE_DECODE_MEMORY_FACTOR * f.size;
                outcome r[2][2];
                for (int b = 0; b < 2 && codecs[b]; b++) {
                    const fbe_type *bt = fbe_codec_type_at(codecs[b], i);
                    r[b][0] = decode(bt, FBE_STANDARD, f.data, f.size, 0, 0);
                    r[b][1] = decode(bt, FBE_STANDARD, f.data, f.size, tight, 0);
                }
                for (int b = 0; b < 2 && codecs[b]; b++) {
                    for (int j = 0; j < 2; j++) {
                        assert_true(r[b][j].status == FBE_OK || r[b][j].status == FBE_MEMORY_LIMIT);
                        assert_int_equal(r[b][j].status, r[0][j].status);
                        assert_int_equal(r[b][j].total, r[0][j].total);
                    }
                    assert_true(r[b][0].total <= bound(f.size));
                    assert_true(r[b][1].total <= tight);
                }
                limited += r[0][1].status == FBE_MEMORY_LIMIT;
                double ratio = (double)r[0][0].total / (double)f.size;
                if (r[0][0].status == FBE_OK && ratio > worst)
                    worst = ratio;
                types++;
                free(f.data);
            }
        }
        fbe_codec_free(codecs[1]);
        fbe_codec_free(codecs[0]);
        fbe_schema_free(s);
    }
    print_message("%zu frames, %zu over 64 x their size, largest decoded within the default: "
                  "%.0f x its frame (with the 1 MiB)\n", types, limited, worst);
    assert_true(limited > 0); /* the frames do amplify: the limit was exercised */
}

/* The budget is never lost to chunk granularity; the arena's own limit is NOMEM. */
static void test_granularity(void **state)
{
    (void)state;
    for (size_t max = 100; max <= (3u << 20); max = max * 3 + 7) {
        fbe_arena a;
        fbe_arena_init(&a, NULL, NULL);
        assert_non_null(fbe_arena_alloc(&a, 10)); /* a chunk from before the call */
        size_t before = a.total, used = 0;
        fbe_decode_budget b = {.max_memory = max, .input = 1};
        void *p;
        while ((p = fbe_decode_alloc(&a, 100, &b)) != NULL)
            used += 112;
        assert_int_equal(b.cap, FBE_DECODE_SPENT);
        assert_int_equal(fbe_decode_status(FBE_NOMEM, &b), FBE_MEMORY_LIMIT);
        assert_true(a.total - before <= max);
        /* all but the last chunk's header and tail: 112 bytes per 100 asked */
        assert_true(used + 2 * 112 + 64 >= max || max < 4096 + 64);
        assert_null(fbe_decode_alloc(&a, 1, &b)); /* stays spent */
        fbe_arena_free(&a);
    }
    /* the default for the input */
    assert_int_equal(fbe_decode_memory_default(1000), 64000 + (1u << 20));
    assert_int_equal(fbe_decode_memory_default(SIZE_MAX), SIZE_MAX);
    /* the arena's own limit first: NOMEM, the budget not spent */
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    a.limit = 10000;
    fbe_decode_budget b = {.max_memory = 1u << 20, .input = 1};
    while (fbe_decode_alloc(&a, 100, &b))
        ;
    assert_int_not_equal(b.cap, FBE_DECODE_SPENT);
    assert_int_equal(fbe_decode_status(FBE_NOMEM, &b), FBE_NOMEM);
    fbe_arena_free(&a);
}

/* ---- sinks ------------------------------------------------------------------------- */

typedef struct collected {
    fbe_buffer all;
    size_t calls;
} collected;

static fbe_status collect(void *ctx, const void *data, size_t len)
{
    collected *c = ctx;
    c->calls++;
    return fbe_buffer_append(&c->all, data, len);
}

static fbe_status refuse(void *ctx, const void *data, size_t len)
{
    (void)ctx;
    (void)data;
    (void)len;
    return FBE_IO;
}

/* The text and JSON of every golden case through a 16-byte sink: the same bytes. */
static void test_sink(void **state)
{
    (void)state;
    fbe_schema *s = load_golden("test");
    fbe_codec *c = fbe_interp_create(s, NULL, NULL);
    const fbe_type *t = fbe_codec_type(c, "test.StructNested");
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    void *value = fbe_arena_alloc(&arena, t->ir->host_size);
    fbe_init(t->ir, value);
    for (int form = 0; form < 3; form++) {
        fbe_buffer whole, sink;
        fbe_buffer_init(&whole, NULL, NULL);
        collected out = {.calls = 0};
        fbe_buffer_init(&out.all, NULL, NULL);
        fbe_buffer_init_sink(&sink, collect, &out, 16);
        fbe_status a = form == 0 ? fbe_print(t->ir, value, &whole)
                                 : fbe_json_write(t->ir, value, form == 2 ? FBE_JSON_PRETTY : 0,
                                                  &whole, NULL);
        fbe_status b = form == 0 ? fbe_print(t->ir, value, &sink)
                                 : fbe_json_write(t->ir, value, form == 2 ? FBE_JSON_PRETTY : 0,
                                                  &sink, NULL);
        assert_int_equal(a, FBE_OK);
        assert_int_equal(b, FBE_OK);
        assert_int_equal(fbe_buffer_flush(&sink), FBE_OK);
        assert_true(out.calls >= 2 && whole.size > 256);
        assert_int_equal(out.all.size, whole.size);
        assert_memory_equal(out.all.data, whole.data, whole.size);
        assert_int_equal(fbe_buffer_position(&sink), whole.size);
        fbe_buffer_free(&sink);
        fbe_buffer_free(&out.all);
        fbe_buffer_free(&whole);
    }
    /* a failing sink is the writer's status */
    fbe_buffer sink;
    fbe_buffer_init_sink(&sink, refuse, NULL, 16);
    assert_int_equal(fbe_print(t->ir, value, &sink), FBE_IO);
    fbe_buffer_free(&sink);
    /* truncate keeps what was flushed, drops the rest */
    collected out = {.calls = 0};
    fbe_buffer_init(&out.all, NULL, NULL);
    fbe_buffer_init_sink(&sink, collect, &out, 16);
    assert_int_equal(fbe_buffer_append(&sink, "0123456789", 10), FBE_OK);
    size_t mark = fbe_buffer_position(&sink);
    assert_int_equal(fbe_buffer_append(&sink, "abcdefghij", 10), FBE_OK); /* flushes the digits */
    fbe_buffer_truncate(&sink, mark);
    assert_int_equal(sink.size, 0);
    assert_int_equal(fbe_buffer_append(&sink, "XY", 2), FBE_OK);
    fbe_buffer_truncate(&sink, mark + 1);
    assert_int_equal(fbe_buffer_flush(&sink), FBE_OK);
    assert_int_equal(out.all.size, 11);
    assert_memory_equal(out.all.data, "0123456789X", 11);
    fbe_buffer_free(&sink);
    fbe_buffer_free(&out.all);
    fbe_arena_free(&arena);
    fbe_codec_free(c);
    fbe_schema_free(s);
}

/* ---- fbec ---------------------------------------------------------------------------- */

static void test_fbec(void **state)
{
    (void)state;
    char dir[64]; /* one per process: the plain and sanitizer builds may run at once */
    snprintf(dir, sizeof dir, "/tmp/fbe_test_budget.%ld", (long)getpid());
    char *out = NULL;
    assert_int_equal(run_command(fmt("rm -rf %s && mkdir -p %s", dir, dir), &out), 0);
    free(out);
    write_text(fmt("%s/amp.fbe", dir), amp_schema);
    fbe_schema *s = load_text_ok(amp_schema);
    fbe_codec *c = fbe_interp_create(s, NULL, NULL);
    frame f = build_frame(fbe_codec_type(c, "amp.Holder")->ir, 300, SIZE_MAX);
    write_bytes(fmt("%s/older.bin", dir), f.data, f.size);
    char common[512]; /* fmt's buffers are reused */
    snprintf(common, sizeof common, "'%s' %%s --schema %s/amp.fbe --type amp.Holder", FBEC_PATH, dir);

    int rc = run_command(fmt("%s %s/older.bin -o %s/out.txt 2>&1", fmt(common, "decode"), dir, dir),
                         &out);
    assert_int_equal(rc, 1);
    assert_string_equal(out, fmt("fbec decode: %s/older.bin: cannot decode: decoding needs more "
                                 "memory than the limit for this input allows (%zu bytes: 64 x "
                                 "the input + 1 MiB; raise it with --max-memory)\n",
                                 dir, bound(f.size)));
    free(out);
    assert_false(file_exists(fmt("%s/out.txt", dir)));
    rc = run_command(fmt("%s --max-memory 64M %s/older.bin | wc -c", fmt(common, "decode"), dir),
                     &out);
    assert_int_equal(rc, 0);
    assert_true(strtoull(out, NULL, 10) > 600 * 65536); /* each byte printed */
    free(out);
    rc = run_command(fmt("%s --max-memory 100k --from standard --to final %s/older.bin -o %s/o.bin 2>&1",
                         fmt(common, "convert"), dir, dir), &out);
    assert_int_equal(rc, 1);
    assert_string_equal(out, fmt("fbec convert: %s/older.bin: cannot decode: decoding needs more "
                                 "memory than the limit for this input allows (102400 bytes; "
                                 "raise it with --max-memory)\n", dir));
    free(out);
    /* the JIT's convert deserializes first and verifies only what it refuses: a
     * valid frame over the budget gets the decode's message too */
    rc = run_command(fmt("%s --backend auto --max-memory 100k --from standard --to final "
                         "%s/older.bin -o %s/o.bin 2>&1", fmt(common, "convert"), dir, dir), &out);
    assert_int_equal(rc, 1);
    assert_string_equal(out, fmt("fbec convert: %s/older.bin: cannot decode: decoding needs more "
                                 "memory than the limit for this input allows (102400 bytes; "
                                 "raise it with --max-memory)\n", dir));
    assert_false(file_exists(fmt("%s/o.bin", dir)));
    free(out);
    rc = run_command(fmt("%s --max-memory 1.5G %s/older.bin 2>&1", fmt(common, "decode"), dir), &out);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "fbec decode: invalid size '1.5G' after --max-memory"));
    free(out);
    rc = run_command(fmt("%s --max-memory 0 %s/older.bin 2>&1", fmt(common, "decode"), dir), &out);
    assert_int_equal(rc, 2);
    free(out);

    /* JSON of 4,000 `{}` (12 KB): 256 MiB of structs */
    FILE *j = fopen(fmt("%s/big.json", dir), "w");
    assert_non_null(j);
    fputs("{\"items\":[{}", j);
    for (int i = 1; i < 4000; i++)
        fputs(",{}", j);
    fputs("]}", j);
    long jlen = ftell(j);
    fclose(j);
    rc = run_command(fmt("%s %s/big.json -o %s/o.bin 2>&1", fmt(common, "encode"), dir, dir), &out);
    assert_int_equal(rc, 1);
    assert_string_equal(out, fmt("fbec encode: %s/big.json: $.items: the value needs more memory "
                                 "than the limit for %ld bytes of JSON allows (max_memory) (raise "
                                 "it with --max-memory)\n", dir, jlen));
    free(out);

    /* --stream: each message held to its own frame's budget, reported and skipped */
    write_text(fmt("%s/msg.fbe", dir), "package amp\nstruct Big { byte[65536] b; }\n"
                                       "message Holder { Big[] items; Big?[] maybe; }\n");
    uint8_t *two = malloc(2 * f.size);
    assert_non_null(two);
    memcpy(two, f.data, f.size);
    memcpy(two + f.size, f.data, f.size);
    write_bytes(fmt("%s/stream.bin", dir), two, 2 * f.size);
    free(two);
    const char *stream = fmt("'%s' decode --stream --schema %s/msg.fbe %s/stream.bin", FBEC_PATH,
                             dir, dir);
    rc = run_command(fmt("%s 2>&1", stream), &out);
    assert_int_equal(rc, 1);
    char line[300], want[1024];
    snprintf(line, sizeof line, "decoding needs more memory than the limit for this input "
                                "allows (%zu bytes: 64 x the input + 1 MiB; raise it with "
                                "--max-memory); skipped\n", bound(f.size));
    snprintf(want, sizeof want, "fbec decode: %s/stream.bin: frame at byte 0: %s"
                                "fbec decode: %s/stream.bin: frame at byte %zu: %s",
             dir, line, dir, f.size, line);
    assert_string_equal(out, want);
    free(out);
    rc = run_command(fmt("%s --max-memory 64M | cut -c1-40", stream), &out);
    assert_int_equal(rc, 0);
    assert_string_equal(out, "amp.Holder\tHolder(items=[300][Big(b=[655\n"
                             "amp.Holder\tHolder(items=[300][Big(b=[655\n");
    free(out);

    free(f.data);
    fbe_codec_free(c);
    fbe_schema_free(s);
    rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_older_bodies), cmocka_unit_test(test_final),
        cmocka_unit_test(test_json),         cmocka_unit_test(test_golden_types),
        cmocka_unit_test(test_granularity),  cmocka_unit_test(test_sink),
        cmocka_unit_test(test_fbec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
