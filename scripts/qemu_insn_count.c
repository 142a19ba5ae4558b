// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin: count the guest instructions that all vCPUs execute, and
 * print the count whenever the guest executes the marker instruction, a long
 * NOP that nothing else uses: nopl 0x1e0c2d5a(%rax) (0f 1f 80 5a 2d 0c 1e).
 * The difference of two lines is what the guest executed in between.
 *
 * Run QEMU with -accel tcg,thread=single, so that the vCPUs take turns on one
 * thread and the count is exact, and with -d plugin -D FILE to keep the lines.
 *
 * With the argument profile=on it also keeps, for each translated block, the
 * instructions it executed between the first and second marker, the third
 * and fourth, and so on, and prints them as "insn_profile ADDRESS INSNS"
 * lines, for report/insn_count.py to sum per kernel symbol, whenever the
 * guest executes the dump marker (nopl 0x1e0c2d5b(%rax)), and at exit; each
 * print holds what was kept since the last, so the lines add up.  The dump
 * marker matters: QEMU does not always reach its exit.
 *
 * Declares the parts of QEMU's plugin API, version 1 (QEMU 7.2), it uses.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

static int profile;
static const unsigned char marker[] = { 0x0f, 0x1f, 0x80, 0x5a, 0x2d, 0x0c, 0x1e };
static const unsigned char dump_marker[] = { 0x0f, 0x1f, 0x80, 0x5b, 0x2d, 0x0c, 0x1e };
static uint64_t insns;	/* every vCPU's; exact with thread=single */

/*
 * profile=on: a block's executions, and those between markers.  A block
 * translated again (after a flush, or from another process at the same
 * address) shares the record of its address and length.
 */
struct block {
	uint64_t vaddr, n_insns, execs, execs_at_start, window;
};
static struct block **blocks;		/* in order of first translation */
static size_t nr_blocks, max_blocks;
static struct block **block_table;	/* open addressing, by address and length */
static size_t table_size;
static unsigned long markers;

static void on_marker(unsigned int vcpu_index, void *userdata)
{
	char line[80];
	size_t i;

	snprintf(line, sizeof(line), "insn_count vcpu %u insns %" PRIu64 "\n",
		 vcpu_index, insns);
	qemu_plugin_outs(line);
	/* An odd marker opens a window, an even one closes it. */
	for (i = 0; i < nr_blocks; i++) {
		struct block *b = blocks[i];

		if (markers % 2 == 0)
			b->execs_at_start = b->execs;
		else
			b->window += b->execs - b->execs_at_start;
	}
	markers++;
}

static void *alloc_or_die(void *p)
{
	if (!p) {
		fprintf(stderr, "qemu_insn_count: out of memory\n");
		abort();
	}
	return p;
}

static struct block **table_slot(struct block **table, size_t size,
				 uint64_t vaddr, uint64_t n)
{
	size_t i = (vaddr * 0x9e3779b97f4a7c15ull + n) & (size - 1);

	while (table[i] && (table[i]->vaddr != vaddr || table[i]->n_insns != n))
		i = (i + 1) & (size - 1);
	return &table[i];
}

/* The record of a block at @vaddr of @n instructions, made on first sight. */
static struct block *find_block(uint64_t vaddr, uint64_t n)
{
	struct block **slot, *b;
	size_t i;

	if (2 * (nr_blocks + 1) > table_size) {
		table_size = table_size ? 2 * table_size : 131072;
		free(block_table);
		block_table = alloc_or_die(calloc(table_size, sizeof(*block_table)));
		for (i = 0; i < nr_blocks; i++)
			*table_slot(block_table, table_size, blocks[i]->vaddr,
				    blocks[i]->n_insns) = blocks[i];
	}
	slot = table_slot(block_table, table_size, vaddr, n);
	if (*slot)
		return *slot;
	if (nr_blocks == max_blocks) {
		max_blocks = max_blocks ? 2 * max_blocks : 65536;
		blocks = alloc_or_die(realloc(blocks, max_blocks * sizeof(*blocks)));
	}
	b = alloc_or_die(calloc(1, sizeof(*b)));
	b->vaddr = vaddr;
	b->n_insns = n;
	/* Made between markers: a window open now counts from 0. */
	blocks[nr_blocks++] = b;
	*slot = b;
	return b;
}

static void add_block(struct qemu_plugin_tb *tb, size_t n)
{
	struct block *b = find_block(qemu_plugin_tb_vaddr(tb), n);

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->execs, 1);
}

static void print_profile(qemu_plugin_id_t id, void *userdata)
{
	char line[80];
	size_t i;

	for (i = 0; i < nr_blocks; i++) {
		if (!blocks[i]->window)
			continue;
		snprintf(line, sizeof(line), "insn_profile %" PRIx64 " %" PRIu64 "\n",
			 blocks[i]->vaddr, blocks[i]->window * blocks[i]->n_insns);
		qemu_plugin_outs(line);
		blocks[i]->window = 0;
	}
}

static void on_dump_marker(unsigned int vcpu_index, void *userdata)
{
	print_profile(0, NULL);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &insns, n);
	if (profile)
		add_block(tb, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) != sizeof(marker))
			continue;
		if (!memcmp(qemu_plugin_insn_data(insn), marker, sizeof(marker)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       NULL);
		else if (profile && !memcmp(qemu_plugin_insn_data(insn), dump_marker,
					    sizeof(dump_marker)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_dump_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       NULL);
	}
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "profile=on")) {
			profile = 1;
		} else {
			fprintf(stderr, "qemu_insn_count: unknown argument '%s'\n", argv[i]);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	if (profile)
		qemu_plugin_register_atexit_cb(id, print_profile, NULL);
	return 0;
}
