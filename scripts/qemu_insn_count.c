// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin: count the guest instructions that all vCPUs execute, and
 * print the count whenever the guest executes the marker instruction, a long
 * NOP that nothing else uses: nopl 0x1e0c2d5a(%rax) (0f 1f 80 5a 2d 0c 1e).
 * The difference of two lines is what the guest executed in between.
 *
 * Run QEMU with -accel tcg,thread=single, so that the vCPUs take turns on one
 * thread and the count is exact, and with -d plugin -D FILE to keep the lines.
 * Declares the parts of QEMU's plugin API, version 1 (QEMU 7.2), it uses.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
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
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

static const unsigned char marker[] = { 0x0f, 0x1f, 0x80, 0x5a, 0x2d, 0x0c, 0x1e };
static uint64_t insns;	/* every vCPU's; exact with thread=single */

static void on_marker(unsigned int vcpu_index, void *userdata)
{
	char line[80];

	snprintf(line, sizeof(line), "insn_count vcpu %u insns %" PRIu64 "\n",
		 vcpu_index, insns);
	qemu_plugin_outs(line);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &insns, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(marker) &&
		    !memcmp(qemu_plugin_insn_data(insn), marker, sizeof(marker)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       NULL);
	}
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}
