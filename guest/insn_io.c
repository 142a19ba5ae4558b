// SPDX-License-Identifier: GPL-2.0
/*
 * insn_io KIND DEVICE BATCHES OPS: BATCHES batches of OPS 4 KiB I/Os of
 * DEVICE at pseudo-random aligned offsets (the same ones every run), each
 * batch between two executions of the marker instruction of
 * scripts/qemu_insn_count.c, so that the plugin's count between them is what
 * the guest executed for the batch.  KIND:
 *   read, write  pread()/pwrite() with O_DIRECT, one at a time
 *   buffered     pread() through the page cache, each block dropped from it
 *                (POSIX_FADV_DONTNEED) after it was read, so every read misses
 *   iopoll       io_uring with IORING_SETUP_IOPOLL, one at a time (a poll queue)
 *   uring32, uring128    io_uring without IOPOLL, 32 or 128 in flight
 *   libaio32, libaio128  Linux AIO, 32 or 128 in flight
 *   walk         DEVICE is a directory: each batch drops the caches (outside
 *                the markers), then lstat()s every entry below it (nftw());
 *                its OPS are the entries, and the OPS argument is not used
 * At the end it executes the plugin's dump marker, so that a profile is
 * printed whether or not QEMU reaches its exit, and prints "batch N ops OPS
 * seconds S" per batch; exits 1 on an error.
 * Raw system calls, so that only the guest's own libc is needed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096
#define DEPTH 128	/* the most in flight */

static uint64_t seed = 0x9e3779b97f4a7c15ULL, blocks;
static int fd;
static char *bufs;	/* DEPTH blocks */

static void marker(void)
{
	/* nopl 0x1e0c2d5a(%rax) */
	asm volatile(".byte 0x0f, 0x1f, 0x80, 0x5a, 0x2d, 0x0c, 0x1e" ::: "memory");
}

/* The plugin prints its profile (profile=on): nopl 0x1e0c2d5b(%rax) */
static void dump_marker(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80, 0x5b, 0x2d, 0x0c, 0x1e" ::: "memory");
}

static void fail(const char *what)
{
	fprintf(stderr, "insn_io: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long parse(const char *s, const char *what, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 1 || v > max) {
		fprintf(stderr, "insn_io: %s '%s' is not 1 to %ld\n", what, s, max);
		exit(2);
	}
	return v;
}

static off_t next_offset(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (seed >> 17) % blocks * BLOCK;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long walked;

static int count_entry(const char *path, const struct stat *st, int type,
		       struct FTW *ftw)
{
	walked++;
	return 0;
}

static void drop_caches(void)
{
	int proc;

	sync();
	proc = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (proc < 0 || write(proc, "3\n", 2) != 2)
		fail("/proc/sys/vm/drop_caches");
	close(proc);
}

static void sync_batch(const char *kind, long ops)
{
	long i;

	for (i = 0; i < ops; i++) {
		off_t off = next_offset();
		ssize_t n;

		if (!strcmp(kind, "write"))
			n = pwrite(fd, bufs, BLOCK, off);
		else
			n = pread(fd, bufs, BLOCK, off);
		if (n != BLOCK)
			fail(kind);
		if (!strcmp(kind, "buffered") &&
		    posix_fadvise(fd, off, BLOCK, POSIX_FADV_DONTNEED))
			fail("posix_fadvise");
	}
}

/* ---- io_uring, without liburing ---- */
static struct {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
} ring;

static void uring_setup(int iopoll)
{
	struct io_uring_params p = { .flags = iopoll ? IORING_SETUP_IOPOLL : 0 };
	size_t sq_size, cq_size;
	char *sq, *cq;

	ring.fd = syscall(__NR_io_uring_setup, DEPTH, &p);
	if (ring.fd < 0)
		fail("io_uring_setup");
	sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		sq_size = cq_size = sq_size > cq_size ? sq_size : cq_size;
	sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  ring.fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		fail("mmap SQ ring");
	cq = sq;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, ring.fd, IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			fail("mmap CQ ring");
	}
	ring.sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			 ring.fd, IORING_OFF_SQES);
	if (ring.sqes == MAP_FAILED)
		fail("mmap SQEs");
	ring.sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	ring.sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	ring.sq_array = (unsigned int *)(sq + p.sq_off.array);
	ring.cq_head = (unsigned int *)(cq + p.cq_off.head);
	ring.cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	ring.cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	ring.cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
}

static void uring_queue(unsigned int slot)
{
	unsigned int tail = *ring.sq_tail, idx = tail & *ring.sq_mask;
	struct io_uring_sqe *sqe = &ring.sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)(bufs + slot * BLOCK);
	sqe->len = BLOCK;
	sqe->off = next_offset();
	sqe->user_data = slot;
	ring.sq_array[idx] = idx;
	__atomic_store_n(ring.sq_tail, tail + 1, __ATOMIC_RELEASE);
}

/* Reap what completed into free[]; returns how many. */
static int uring_reap(unsigned int *free_slots, int nfree)
{
	unsigned int head = *ring.cq_head;
	unsigned int tail = __atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE);
	int n = 0;

	for (; head != tail; head++, n++) {
		struct io_uring_cqe *cqe = &ring.cqes[head & *ring.cq_mask];

		if (cqe->res != BLOCK) {
			errno = cqe->res < 0 ? -cqe->res : EIO;
			fail("io_uring read");
		}
		free_slots[nfree + n] = cqe->user_data;
	}
	__atomic_store_n(ring.cq_head, head, __ATOMIC_RELEASE);
	return n;
}

static void uring_batch(long ops, int depth)
{
	unsigned int free_slots[DEPTH];
	long issued = 0, done = 0;
	int nfree = depth, i;

	for (i = 0; i < depth; i++)
		free_slots[i] = i;
	while (done < ops) {
		int submit = 0;

		while (nfree && issued < ops) {
			uring_queue(free_slots[--nfree]);
			issued++;
			submit++;
		}
		/* An SQE left unconsumed would never be submitted: fail. */
		if (syscall(__NR_io_uring_enter, ring.fd, submit, 1,
			    IORING_ENTER_GETEVENTS, NULL, 0) != submit)
			fail("io_uring_enter");
		i = uring_reap(free_slots, nfree);
		nfree += i;
		done += i;
	}
}

/* ---- Linux AIO, without libaio ---- */
static void aio_batch(aio_context_t ctx, long ops, int depth)
{
	struct iocb cbs[DEPTH], *ptrs[DEPTH];
	struct io_event events[DEPTH];
	unsigned int free_slots[DEPTH];
	long issued = 0, done = 0;
	int nfree = depth, i, n;

	for (i = 0; i < depth; i++)
		free_slots[i] = i;
	while (done < ops) {
		int submit = 0;

		while (nfree && issued < ops) {
			unsigned int slot = free_slots[--nfree];
			struct iocb *cb = &cbs[slot];

			memset(cb, 0, sizeof(*cb));
			cb->aio_fildes = fd;
			cb->aio_lio_opcode = IOCB_CMD_PREAD;
			cb->aio_buf = (uintptr_t)(bufs + slot * BLOCK);
			cb->aio_nbytes = BLOCK;
			cb->aio_offset = next_offset();
			cb->aio_data = slot;
			ptrs[submit++] = cb;
			issued++;
		}
		if (submit) {
			long ret = syscall(__NR_io_submit, ctx, submit, ptrs);

			if (ret != submit) {
				if (ret >= 0)
					errno = EAGAIN;	/* a partial submission */
				fail("io_submit");
			}
		}
		n = syscall(__NR_io_getevents, ctx, 1, DEPTH, events, NULL);
		if (n < 1)
			fail("io_getevents");
		for (i = 0; i < n; i++) {
			if (events[i].res != BLOCK) {
				errno = EIO;
				fail("aio read");
			}
			free_slots[nfree++] = events[i].data;
		}
		done += n;
	}
}

static const struct {
	const char *name;
	int depth;
} kinds[] = {
	{ "read", 1 }, { "write", 1 }, { "buffered", 1 }, { "iopoll", 1 },
	{ "uring32", 32 }, { "uring128", 128 }, { "libaio32", 32 },
	{ "libaio128", 128 }, { "walk", 0 },
};

int main(int argc, char **argv)
{
	aio_context_t ctx = 0;
	long batches, ops, b, *done;
	const char *kind;
	double *seconds;
	int flags, depth = -1;
	size_t k;
	off_t size;

	if (argc != 5) {
		fprintf(stderr, "usage: insn_io KIND DEVICE BATCHES OPS\n");
		return 2;
	}
	kind = argv[1];
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(kind, kinds[k].name))
			depth = kinds[k].depth;
	if (depth < 0) {
		fprintf(stderr, "insn_io: KIND '%s' is not one of read, write, buffered, %s\n",
			kind, "iopoll, uring32, uring128, libaio32, libaio128, walk");
		return 2;
	}
	batches = parse(argv[3], "BATCHES", 1000);
	ops = parse(argv[4], "OPS", 10000000);
	seconds = calloc(batches, sizeof(*seconds));
	done = calloc(batches, sizeof(*done));
	if (!seconds || !done)
		fail("calloc");
	if (!strcmp(kind, "walk")) {
		for (b = 0; b < batches; b++) {
			double t0;

			drop_caches();
			walked = 0;
			t0 = now_s();
			marker();
			if (nftw(argv[2], count_entry, 64, FTW_PHYS))
				fail(argv[2]);
			marker();
			seconds[b] = now_s() - t0;
			done[b] = walked;
		}
		goto out;
	}
	flags = !strcmp(kind, "write") ? O_WRONLY : O_RDONLY;
	if (strcmp(kind, "buffered"))
		flags |= O_DIRECT;
	fd = open(argv[2], flags);
	if (fd < 0)
		fail(argv[2]);
	size = lseek(fd, 0, SEEK_END);
	if (size < BLOCK || posix_memalign((void **)&bufs, BLOCK, DEPTH * BLOCK))
		fail("no room to do I/O");
	memset(bufs, 0x5a, DEPTH * BLOCK);
	blocks = size / BLOCK;
	if (!strcmp(kind, "buffered") && posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM))
		fail("posix_fadvise");
	if (!strncmp(kind, "iopoll", 6) || !strncmp(kind, "uring", 5))
		uring_setup(!strcmp(kind, "iopoll"));
	if (!strncmp(kind, "libaio", 6) && syscall(__NR_io_setup, depth, &ctx))
		fail("io_setup");
	/* Between the two markers only the I/O runs: the output waits for the end. */
	for (b = 0; b < batches; b++) {
		double t0 = now_s();

		marker();
		if (!strcmp(kind, "iopoll") || !strncmp(kind, "uring", 5))
			uring_batch(ops, depth);
		else if (!strncmp(kind, "libaio", 6))
			aio_batch(ctx, ops, depth);
		else
			sync_batch(kind, ops);
		marker();
		seconds[b] = now_s() - t0;
		done[b] = ops;
	}
out:
	dump_marker();
	for (b = 0; b < batches; b++)
		printf("batch %ld ops %ld seconds %.3f\n", b, done[b], seconds[b]);
	return 0;
}
