/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vg_parse.c - the VG text's config syntax read into a tree of
 * libdevmapper's public node and value structs (libdevmapper.h), built in
 * an arena of our own: the tree, the accepted texts and the syntax error
 * messages are those of libdevmapper's dm_config_parse_without_dup_node_check
 * (libdevmapper's config parser), which vg_text.c used before; this reader is written for
 * speed (one pass, no per-token allocation, no copy of the text) and
 * test/unit/test_vg_text.c and test/fuzz/fuzz_vg.c hold it to libdevmapper's
 * trees and messages.
 *
 * The syntax, as libdevmapper reads it:
 *   - whitespace is C isspace; '#' starts a comment up to the end of line;
 *     a NUL or the end of the text ends it;
 *   - a statement is KEY '{' statements '}' or KEY '=' VALUE; KEY is a bare
 *     word (up to whitespace, '#', '=', '{' or '}'), a "string" (\" and \\
 *     unescaped) or a 'string' (no escapes); a KEY with '/' in it names a
 *     path of nested sections, each made anew (duplicates are kept, for the
 *     importer to report);
 *   - VALUE is one TYPE or '[' TYPE [','] ... ']' ('[]': an empty array);
 *     TYPE: a number (first character + - . or a digit: digits with at
 *     most one '.', which makes it a float; the value is strtoll(base 0)
 *     or strtod of the text from there), a "string", a 'string' or a bare
 *     word (a string);
 *   - an unterminated string runs to the end of the text, less its last
 *     character.
 *
 * vg_text_parse_fast (issue 40: the VG text of 20,000 volumes is 2 MB,
 * nearly all of it pool/volumes) reads that one section, when it is in
 * the form vg_export writes, straight into the model, without tokens or
 * nodes: fixed bytes compared, eight digits read at once; at the first
 * byte off that form it gives the whole text up to vg_text_parse.
 */
#include "metadata/vg/vg.h"
#include "metadata/vg/vg_int.h"

#include "lib/base/compiler.h"

#include <errno.h>
#include <inttypes.h>
#include <libdevmapper.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	T_SECTION_B,
	T_SECTION_E,
	T_STRING,	  /* 'single quoted' */
	T_STRING_ESCAPED, /* "double quoted" */
	T_STRING_BARE,
	T_INT,
	T_FLOAT,
	T_IDENTIFIER,
	T_ARRAY_B,
	T_ARRAY_E,
	T_EQ,
	T_COMMA,
	T_EOF,
};

/* C-locale isspace, isdigit (the tools never set a locale) and the bytes
 * that end a bare word. The parser reads a NUL-terminated copy of the
 * text: a NUL ends the text for libdevmapper too, so every scan stops at
 * it without a check of the end. */
static unsigned char ctype[256];
#define C_SPACE 1
#define C_DIGIT 2
#define C_IDEND 4 /* ends a bare word: space, '#', '=', '{', '}', NUL */
#define C_SLASH 8 /* '/': a key of a path */

static void ctype_init(void)
{
	if (ctype[' '])
		return;
	for (int c = '0'; c <= '9'; c++)
		ctype[c] = C_DIGIT;
	ctype['\t'] = ctype['\n'] = ctype['\v'] = ctype['\f'] = ctype['\r'] = C_SPACE | C_IDEND;
	ctype['#'] = ctype['='] = ctype['{'] = ctype['}'] = ctype[0] = C_IDEND;
	ctype['/'] = C_SLASH;
	ctype[' '] = C_SPACE | C_IDEND; /* last: the "done" mark */
}

#define ISSPACE(c) (ctype[(unsigned char)(c)] & C_SPACE)
#define ISDIGIT(c) (ctype[(unsigned char)(c)] & C_DIGIT)

struct chunk {
	struct chunk *next;
	size_t used, size;
	max_align_t data[];
};

/* The strings of the tree are the copy's own bytes: a key's or a value's
 * end is overwritten with a NUL once the token after it is read (no scan
 * goes back), a string's escapes are undone in place. */
struct parser {
	char *fb, *fe; /* the copy of the text, *fe == NUL */
	char *tb, *te; /* the token */
	int t;
	int slash;     /* the bare word has a '/' */
	int fast;      /* T_INT: a plain decimal, its value in IVAL */
	int64_t ival;
	int line;
	const char *key; /* of the assignment being read */
	struct vg_text_tree *tree;
	char *err;
	size_t errlen;
	int nomem;
	struct vg *vg;	/* vg_text_parse_fast's: the volumes go here */
	int volumes;	/* pool/volumes met (once) */
	int off;	/* a byte off the canonical form: read again */
};

static void *arena_more(struct vg_text_tree *tr, size_t n)
{
	struct chunk *c;
	size_t size = n > 262144 ? n : 262144;

	c = malloc(sizeof(*c) + size);
	if (!c)
		return NULL;
	c->size = size;
	c->used = n;
	c->next = tr->chunks;
	tr->chunks = c;
	return c->data;
}

/* N bytes aligned for a pointer */
static inline void *arena_alloc(struct vg_text_tree *tr, size_t n)
{
	struct chunk *c = tr->chunks;

	n = (n + 7) & ~(size_t)7;
	if (c && c->size - c->used >= n) {
		void *r = (char *)c->data + c->used;
		c->used += n;
		return r;
	}
	return arena_more(tr, n);
}

void vg_text_tree_free(struct vg_text_tree *tr)
{
	struct chunk *c = tr->chunks, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	free(tr->text);
	tr->chunks = NULL;
	tr->root = NULL;
	tr->text = NULL;
}

static int fail(struct parser *p, const char *msg, const char *at)
{
	if (!p->err[0]) {
		if (at)
			snprintf(p->err, p->errlen, "Parse error at byte %td (line %d): %s",
				 at - p->fb + 1, p->line, msg);
		else
			snprintf(p->err, p->errlen, "%s", msg);
	}
	return -1;
}

static int oom(struct parser *p)
{
	p->nomem = 1;
	return -1;
}

/* The next token; VALUES: a value may come (after '=', '[' and ','). */
static inline __attribute__((always_inline)) void get_token(struct parser *p, int values)
{
	char *te = p->te;
	unsigned acc = 0, c;
	int lines = 0;

	/* whitespace and comments */
	while (ctype[(unsigned char)*te] & C_SPACE || *te == '#') {
		if (*te == '#')
			while (*te != '\n' && *te)
				te++;
		while (ISSPACE(*te)) {
			lines += *te == '\n';
			te++;
		}
	}
	p->line += lines;
	p->tb = te;
	switch (*te) {
	case '\0':
		p->t = T_EOF;
		break;
	case '{':
		p->t = T_SECTION_B;
		te++;
		break;
	case '}':
		p->t = T_SECTION_E;
		te++;
		break;
	case '[':
		p->t = T_ARRAY_B;
		te++;
		break;
	case ']':
		p->t = T_ARRAY_E;
		te++;
		break;
	case ',':
		p->t = T_COMMA;
		te++;
		break;
	case '=':
		p->t = T_EQ;
		te++;
		break;
	case '"':
		p->t = T_STRING_ESCAPED;
		te++;
		while (*te && *te != '"') {
			if (*te == '\\' && te[1])
				te++;
			te++;
		}
		if (*te)
			te++;
		break;
	case '\'':
		p->t = T_STRING;
		te++;
		while (*te && *te != '\'')
			te++;
		if (*te)
			te++;
		break;
	default:
		if (values && (ISDIGIT(*te) || *te == '+' || *te == '-' || *te == '.')) {
			/* digits with at most one '.' (a float); the integer's
			 * value read on the way */
			uint64_t x = ISDIGIT(*te) ? (uint64_t)(*te - '0') : 0;
			char *d = te + (*te == '+' || *te == '-');

			p->t = *te == '.' ? T_FLOAT : T_INT;
			while (ISDIGIT(c = (unsigned char)*++te))
				x = x * 10 + (c - '0');
			if (*te == '.' && p->t != T_FLOAT) {
				p->t = T_FLOAT;
				while (ISDIGIT(*++te))
					;
			}
			/* a plain decimal (no 0 prefix: octal or hex; no
			 * overflow) or a lone 0 is read here, anything else
			 * by strtoll */
			p->fast = p->t == T_INT && d != te &&
				  (*d != '0' ? te - d <= 18
					     : d + 1 == te && *te != 'x' && *te != 'X');
			if (p->fast)
				p->ival = *p->tb == '-' ? -(int64_t)x : (int64_t)x;
			break;
		}
		while (!((c = ctype[(unsigned char)*te]) & C_IDEND)) {
			acc |= c;
			te++;
		}
		p->slash = acc & C_SLASH;
		p->t = values ? T_STRING_BARE : T_IDENTIFIER;
		break;
	}
	p->te = te;
}

static inline int match(struct parser *p, int t)
{
	if (p->t != t)
		return fail(p, "unexpected token", p->tb);
	get_token(p, t == T_EQ || t == T_ARRAY_B || t == T_COMMA);
	return 0;
}

/* A quoted token's content (the token less its first and last byte, an
 * unterminated one's last byte too) in place, \" and \\ undone when
 * UNESCAPE, as libdevmapper's _dup_string_tok and
 * dm_unescape_double_quotes. */
static char *string_tok(struct parser *p, int unescape)
{
	char *b = p->tb + 1, *e = p->te - 1, *o, *i;

	if (e < b) {
		fail(p, "expected a string token.", b);
		return NULL;
	}
	p->tb = b;
	if (unescape && memchr(b, '\\', (size_t)(e - b))) {
		for (o = i = b; i != e; i++) {
			if (*i == '\\' && i + 1 != e && (i[1] == '"' || i[1] == '\\'))
				i++;
			*o++ = *i;
		}
		e = o;
	}
	*e = '\0';
	return b;
}

/* The nodes of path KEY (NUL-terminated, with a '/'; leading and repeated
 * '/' skipped, a trailing one makes a last node ""), each made anew: the
 * first under PARENT at *TAIL, each next one the child of the one before.
 * The last. */
static struct dm_config_node *make_path(struct parser *p, char *key,
					struct dm_config_node *parent,
					struct dm_config_node ***tail)
{
	struct dm_config_node *n, **sub;
	char *e, *k;

	for (;;) {
		while (*key == '/')
			key++;
		e = strchr(key, '/');
		if (!e)
			e = key + strlen(key);
		n = arena_alloc(p->tree, sizeof(*n) + (size_t)(e - key) + 1);
		if (!n) {
			oom(p);
			return NULL;
		}
		k = (char *)(n + 1);
		memcpy(k, key, (size_t)(e - key));
		k[e - key] = '\0';
		n->key = k;
		n->parent = parent;
		n->sib = n->child = NULL;
		n->v = NULL;
		n->id = 0;
		**tail = n;
		*tail = &n->sib;
		if (!*e)
			return n;
		parent = n;
		sub = &n->child;
		tail = &sub;
		key = e;
	}
}

/* the text from B to END (a copy, NUL-terminated) as strtoll or strtod
 * (FLOAT) read it; errno as they leave it */
static int convert(struct parser *p, const char *b, const char *end, int is_float,
		   struct dm_config_value *v)
{
	char buf[96], *copy = buf;

	if ((size_t)(end - b) >= sizeof(buf) && !(copy = malloc((size_t)(end - b) + 1)))
		return oom(p);
	memcpy(copy, b, (size_t)(end - b));
	copy[end - b] = '\0';
	errno = 0;
	if (is_float)
		v->v.f = (float)strtod(copy, NULL);
	else
		v->v.i = strtoll(copy, NULL, 0);
	if (copy != buf) {
		int e = errno;
		free(copy);
		errno = e;
	}
	return 0;
}

/* One TYPE (see the top) into V (NULL: a new one): V, or NULL. */
static struct dm_config_value *type(struct parser *p, struct dm_config_value *v)
{
	char *s, *end;

	if (!v && !(v = arena_alloc(p->tree, sizeof(*v)))) {
		oom(p);
		return NULL;
	}
	v->format_flags = 0;
	v->next = NULL;
	switch (p->t) {
	case T_INT:
		v->type = DM_CFG_INT;
		if (p->fast) {
			v->v.i = p->ival;
		} else {
			/* strtoll(base 0) reads on past the token: after a lone
			 * 0, an x and hex digits */
			const char *d = p->tb + (*p->tb == '-' || *p->tb == '+');

			end = p->te;
			if (d + 1 == end && *d == '0' && (*end == 'x' || *end == 'X'))
				for (end++; ISDIGIT(*end) || ((*end | 0x20) >= 'a' && (*end | 0x20) <= 'f');
				     end++)
					;
			if (convert(p, p->tb, end, 0, v))
				return NULL;
			if (errno) {
				if (errno == ERANGE && p->key && !strcmp(p->key, "creation_time")) {
					/* as libdevmapper: old 32-bit LVM wrote such
					 * creation times; it reads a fixed day */
					v->v.i = 1527120000;
				} else {
					fail(p, "Failed to read int token.", NULL);
					return NULL;
				}
			}
		}
		get_token(p, 0);
		break;
	case T_FLOAT:
		/* strtod reads on past the token: an exponent */
		end = p->te;
		if (*end == 'e' || *end == 'E') {
			end++;
			if (*end == '+' || *end == '-')
				end++;
			while (ISDIGIT(*end))
				end++;
		}
		if (convert(p, p->tb, end, 1, v))
			return NULL;
		if (errno) {
			fail(p, "Failed to read float token.", NULL);
			return NULL;
		}
		v->type = DM_CFG_FLOAT;
		get_token(p, 0);
		break;
	case T_STRING:
	case T_STRING_ESCAPED:
		if (!(s = string_tok(p, p->t == T_STRING_ESCAPED)))
			return NULL;
		v->type = DM_CFG_STRING;
		v->v.str = s;
		get_token(p, 0);
		break;
	case T_STRING_BARE:
		v->type = DM_CFG_STRING;
		v->v.str = s = p->tb;
		end = p->te;
		get_token(p, 0);
		*end = '\0'; /* read past now */
		break;
	default:
		fail(p, "expected a value", p->tb);
		return NULL;
	}
	return v;
}

/* '[' TYPE* ']' | TYPE; the first value in FIRST (NULL: a new one) */
static struct dm_config_value *value(struct parser *p, struct dm_config_value *first)
{
	struct dm_config_value *h = NULL, *l, *ll = NULL;

	if (p->t != T_ARRAY_B)
		return type(p, first);
	get_token(p, 1);
	while (p->t != T_ARRAY_E) {
		if (!(l = type(p, h ? NULL : first)))
			return NULL;
		if (!h)
			h = l;
		else
			ll->next = l;
		ll = l;
		if (p->t == T_COMMA)
			get_token(p, 1);
	}
	get_token(p, 0);
	if (!h) {
		if (!(h = first) && !(h = arena_alloc(p->tree, sizeof(*h)))) {
			oom(p);
			return NULL;
		}
		memset(h, 0, sizeof(*h));
		h->type = DM_CFG_EMPTY_ARRAY;
	}
	return h;
}

/* ---- the canonical volumes (vg_text_parse_fast) ---- */

/* The bytes of a volume name (vg_name_valid's rule; the rest of it is
 * checked at the name's end) */
static const unsigned char name_byte[256] = {
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
	['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
	['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
	['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
	['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1,
	['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1,
	['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, ['+'] = 1, ['_'] = 1,
	['.'] = 1, ['-'] = 1
};

/* LIT at *C: past it, 1; else 0 */
/* the fewest bytes an entry of the canonical volumes takes: a one-byte
 * name and the keys that are always written, each value one digit */
#define CANON_ENTRY_MIN                                                                        \
	(sizeof("\t\tx {\n\t\t\tdev_id=0\n\t\t\tsize=0\n\t\t\torigin=\"\"\n"                           \
		"\t\t\tcreation_time=0\n\t\t\tread_only=0\n\t\t}\n") - 1)
#define SKIP(c, lit) (!memcmp((c), "" lit "", sizeof(lit) - 1) ? ((c) += sizeof(lit) - 1, 1) : 0)

/* The 8 bytes at C, the first in the lowest byte (the text's copy has
 * TEXT_PAD bytes after its end for such loads) */
static inline uint64_t load8(const char *c)
{
	uint64_t w;

	memcpy(&w, c, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* How many of W's bytes, from its lowest, are decimal digits (0..8): a
 * digit is 0x30..0x39, its high half 3 and its low half plus 6 not over
 * 15 (a carry that addition takes on goes only to later bytes) */
static inline unsigned digits_in(uint64_t w)
{
	uint64_t off = ((w & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull) |
		       (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) ^
			0x3030303030303030ull);

	return off ? (unsigned)__builtin_ctzll(off) >> 3 : 8;
}

/* The value of the N (1..8) digits that begin W: moved up to make the
 * last the highest byte, then pairs, fours and eights of digits joined
 * with one multiplication each */
static inline uint64_t digits_value(uint64_t w, unsigned n)
{
	w = (w << (64 - 8 * n)) & 0x0F0F0F0F0F0F0F0Full;
	w = (w * 2561) >> 8 & 0x00FF00FF00FF00FFull;
	w = (w * 6553601) >> 16 & 0x0000FFFF0000FFFFull;
	return (w * 42949672960001ull) >> 32;
}

/* A decimal as vg_export writes it at *C, up to its newline: "0", or a
 * digit 1-9 and up to 17 more (which the tokenizer's T_INT reads as
 * they are: no octal, no hex, no overflow), after a '-' when SIGNED; read
 * eight digits at a time. Past the newline, 1; else 0. */
static inline __attribute__((always_inline)) int canon_int(const char **c, int is_signed,
							  int64_t *out)
{
	static const uint64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
					   10000000, 100000000 };
	const char *d = *c;
	uint64_t w, x;
	unsigned n, more;
	int neg = is_signed && *d == '-';

	d += neg;
	w = load8(d);
	n = digits_in(w);
	if (*d == '0') {
		if (neg || n != 1 || d[1] != '\n')
			return 0;
		*out = 0;
		*c = d + 2;
		return 1;
	}
	if (!n)
		return 0;
	x = digits_value(w, n);
	if (n == 8) {
		w = load8(d + 8);
		more = digits_in(w);
		if (more == 8) { /* 17 or 18 digits */
			x = x * pow10[8] + digits_value(w, 8);
			n = 16;
			w = load8(d + 16);
			more = digits_in(w);
			if (more > 2)
				return 0;
		}
		if (more)
			x = x * pow10[more] + digits_value(w, more);
		n += more;
	}
	if (d[n] != '\n')
		return 0;
	*out = neg ? -(int64_t)x : (int64_t)x;
	*c = d + n + 1;
	return 1;
}

/* A string as vg_export writes it at *C, after its opening quote: bytes
 * but '"', '\' and NUL (no escape to undo) up to the closing quote and a
 * newline, at most MAX of them, copied to OUT. Past the newline, 1; else
 * 0. */
static inline int canon_str(const char **c, char *out, size_t max)
{
	const char *b = *c, *d = b;

	while (*d != '"' && *d != '\\' && *d)
		d++;
	if (*d != '"' || d[1] != '\n' || (size_t)(d - b) > max)
		return 0;
	memcpy(out, b, (size_t)(d - b));
	out[d - b] = '\0';
	*c = d + 2;
	return 1;
}

/* The entries of pool/volumes from *C (just past its '{') as vg_export
 * writes them: "\t\tNAME {\n", "\t\t\tKEY=VALUE\n" for dev_id, size,
 * origin, creation_time, read_only and, when set, activation_skip,
 * content_uuid and luks_uuid, in that order, and "\t\t}\n"; up to the
 * "\t}" that closes the section, where *C is left. Each is what
 * vg_text.c's import_volume takes (the same checks: a valid name, a
 * dev_id up to VG_DEV_ID_MAX, a 0|1 read_only and activation_skip,
 * strings that fit) and goes into VG as vg_append_volume would put it
 * (read into the array's next entry, no more than VG_MAX_VOLUMES); a
 * name twice is left to vg_check_model, which
 * refuses it. 0; -1 at the first byte off that form (some volumes may be
 * in VG then); -ENOMEM. */
static int canon_volumes(const char **cp, const char *end, struct vg *vg, const char *text)
{
	const char *c = *cp, *name;
	struct vg_volume *v;
	struct vg_source *src = NULL;
	int64_t i;
	size_t n, most = (size_t)(end - c) / CANON_ENTRY_MIN;

	/* room for as many entries as the text can hold, at once: no move
	 * of the array as it grows (the room not used is never touched) */
	if (most > VG_MAX_VOLUMES)
		most = VG_MAX_VOLUMES;
	if (vg_reserve_volumes(vg, (unsigned)most))
		return -ENOMEM;
	/* a writer's: where each entry begins (vg.source; the text itself
	 * is handed over once the import is through) */
	if (vg_source_kept() && !vg->source && (size_t)(end - text) < UINT32_MAX) {
		if (!(src = calloc(1, sizeof(*src))) ||
		    !(src->start = malloc((most + 1) * sizeof(*src->start)))) {
			free(src);
			return -ENOMEM;
		}
		vg->source = src;
	}
	if (*c++ != '\n')
		return -1;
	for (;;) {
		if (src && vg->nr_volumes > most) {
			vg_source_free(src);	/* (more than the room: none kept) */
			vg->source = src = NULL;
		}
		if (src)
			src->start[vg->nr_volumes] = (uint32_t)(c - text);
		if (c[0] == '\t' && c[1] == '}') {
			*cp = c;
			if (src)
				src->n = vg->nr_volumes;
			return 0;
		}
		if (!SKIP(c, "\t\t"))
			return -1;
		for (name = c; name_byte[(unsigned char)*c]; c++)
			;
		n = (size_t)(c - name);
		if (!n || n > VG_NAME_MAX || *name == '-' ||
		    (*name == '.' && (n == 1 || (n == 2 && name[1] == '.'))) || !SKIP(c, " {\n") ||
		    vg->nr_volumes >= VG_MAX_VOLUMES)
			return -1;
		/* read into the array's next entry, which counts once whole
		 * (a copy a volume less: 20,000 of 280 bytes a read) */
		if (vg->nr_volumes == vg->alloc_volumes &&
		    vg_reserve_volumes(vg, vg->alloc_volumes ? 2 * vg->alloc_volumes : 16))
			return -ENOMEM;
		v = &vg->volumes[vg->nr_volumes];
		memset(v, 0, sizeof(*v));
		memcpy(v->name, name, n);
		if (!SKIP(c, "\t\t\tdev_id=") || !canon_int(&c, 0, &i) || i > VG_DEV_ID_MAX)
			return -1;
		v->dev_id = (uint32_t)i;
		if (!SKIP(c, "\t\t\tsize=") || !canon_int(&c, 0, &i))
			return -1;
		v->size = (uint64_t)i;
		if (!SKIP(c, "\t\t\torigin=\"") || !canon_str(&c, v->origin, VG_NAME_MAX) ||
		    !SKIP(c, "\t\t\tcreation_time=") || !canon_int(&c, 1, &v->creation_time) ||
		    !SKIP(c, "\t\t\tread_only=") || !canon_int(&c, 0, &i) || i > 1)
			return -1;
		v->read_only = (int)i;
		if (SKIP(c, "\t\t\tactivation_skip=")) {
			if (!canon_int(&c, 0, &i) || i > 1)
				return -1;
			v->activation_skip = (int)i;
		}
		if (SKIP(c, "\t\t\tcontent_uuid=\"") &&
		    !canon_str(&c, v->content_uuid, sizeof(v->content_uuid) - 1))
			return -1;
		if (SKIP(c, "\t\t\tluks_uuid=\"") &&
		    !canon_str(&c, v->luks_uuid, sizeof(v->luks_uuid) - 1))
			return -1;
		if (!SKIP(c, "\t\t}\n"))
			return -1;
		vg->nr_volumes++;
	}
}

struct frame {
	struct dm_config_node *node; /* NULL: the top */
	struct dm_config_node **tail;
};

/* The zero bytes after the copy of the text: the canonical reader
 * compares a literal's bytes at once, up to its first that differs */
#define TEXT_PAD 32

static int parse(const char *text, size_t len, struct vg_text_tree *tree, char *err,
		 size_t errlen, struct vg *vg, int *off)
{
	struct parser p = { .line = 1, .tree = tree, .err = err, .errlen = errlen, .vg = vg };
	struct frame *stack, *f;
	size_t depth = 0, alloc = 16;
	int r = -1;

	ctype_init();
	tree->root = NULL;
	tree->chunks = NULL;
	err[0] = '\0';
	tree->text = malloc(tp_alloc_class(len + 1 + TEXT_PAD));
	stack = malloc(alloc * sizeof(*stack));
	if (!stack || !tree->text) {
		free(stack);
		free(tree->text);
		tree->text = NULL;
		return -ENOMEM;
	}
	memcpy(tree->text, text, len);
	memset(tree->text + len, 0, 1 + TEXT_PAD);
	p.fb = p.tb = p.te = tree->text;
	p.fe = tree->text + len;
	stack[0] = (struct frame){ NULL, &tree->root };
	get_token(&p, 0);
	for (;;) {
		struct dm_config_node *n;
		char *key, *end = NULL;
		size_t klen;
		int t = p.t, slash;

		f = &stack[depth];
		if (!depth && t == T_EOF) {
			/* as libdevmapper: a text of no statement does not parse
			 * (and says nothing more) */
			if (!tree->root)
				goto out;
			break;
		}
		if (depth && t == T_SECTION_E) {
			get_token(&p, 0);
			depth--;
			continue;
		}
		/* KEY */
		if (t == T_IDENTIFIER) {
			key = p.tb;
			end = p.te;
			klen = (size_t)(end - key);
			slash = p.slash;
			get_token(&p, 0);
			*end = '\0'; /* read past now */
		} else if (t == T_STRING_ESCAPED || t == T_STRING) {
			if (!(key = string_tok(&p, t == T_STRING_ESCAPED)))
				goto out;
			get_token(&p, 0);
			klen = strlen(key);
			slash = memchr(key, '/', klen) != NULL;
		} else {
			fail(&p, "unexpected token", p.tb);
			goto out;
		}
		if (!klen) {
			fail(&p, "empty section identifier", p.tb);
			goto out;
		}
		if (!slash) {
			/* the node, and its first value unless a section */
			size_t size = sizeof(*n) + (p.t != T_SECTION_B ? sizeof(*n->v) : 0);

			if (!(n = arena_alloc(tree, size))) {
				oom(&p);
				goto out;
			}
			n->key = key;
			n->parent = f->node;
			n->sib = n->child = NULL;
			n->v = p.t != T_SECTION_B ? (struct dm_config_value *)(n + 1) : NULL;
			n->id = 0;
			*f->tail = n;
			f->tail = &n->sib;
		} else if (!(n = make_path(&p, key, f->node, &f->tail))) {
			goto out; /* a path: its parts one by one (rare) */
		}
		if (p.t == T_SECTION_B) {
			/* pool/volumes, for vg_text_parse_fast: its entries read
			 * from just past its '{' */
			char *open_end = p.te;
			int canon = vg && depth == 1 && t == T_IDENTIFIER && !slash && klen == 7 &&
				    !memcmp(key, "volumes", 7) && !f->node->parent &&
				    !strcmp(f->node->key, "pool");

			get_token(&p, 0);
			if (++depth == alloc) {
				struct frame *s = realloc(stack, 2 * alloc * sizeof(*stack));
				if (!s) {
					oom(&p);
					goto out;
				}
				stack = s;
				alloc *= 2;
			}
			stack[depth] = (struct frame){ n, &n->child };
			if (canon) {
				/* in the canonical form, straight into the model
				 * (once: a second is no text that imports), the
				 * parse on at the section's closing '}' */
				const char *c = open_end;
				int k = p.volumes++ ? -1 : canon_volumes(&c, p.fe, vg, tree->text);

				if (k == -ENOMEM) {
					oom(&p);
					goto out;
				}
				if (k) {
					p.off = 1;
					goto out;
				}
				p.te = (char *)c;
				get_token(&p, 0);
			}
			continue;
		}
		if (match(&p, T_EQ))
			goto out;
		p.key = n->key;
		if (!(n->v = value(&p, n->v)))
			goto out;
	}
	r = 0;
out:
	free(stack);
	if (r) {
		r = p.nomem ? -ENOMEM : -EINVAL;
		vg_text_tree_free(tree);
	}
	if (off)
		*off = p.off;
	return r;
}

int vg_text_parse(const char *text, size_t len, struct vg_text_tree *tree, char *err,
		  size_t errlen)
{
	return parse(text, len, tree, err, errlen, NULL, NULL);
}

int vg_text_parse_fast(const char *text, size_t len, struct vg_text_tree *tree, struct vg *vg)
{
	char err[256];
	int off = 0, r;

	r = parse(text, len, tree, err, sizeof(err), vg, &off);
	if (r == -ENOMEM)
		return r;
	if (!r && !off)
		return 1;
	/* a byte off the form, or a syntax error (whose message, with its
	 * line, is the general parse's to give): nothing kept */
	vg_text_tree_free(tree);
	vg->nr_volumes = 0;
	vg_source_free(vg->source);
	vg->source = NULL;
	return 0;
}
