/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The software ConnectX ("the model"): the public interface tests use.
 *
 * The model stands behind the two seams of providers/doorbell/mlx5/
 * mlx5_seam.h and the core's kernel seam, providers/doorbell/core/kcmd.h.
 * It defines every m5k_* and db_k_* kernel command (a fake mlx5_ib +
 * uverbs) and the device-memory hooks (db_mmio_model_* of core/mmio.h,
 * m5_seam_* of mlx5_seam.h), so the core and the mlx5 backend, built with
 * DOORBELL_MLX5_MODEL, run unchanged against it:
 *
 *	dev = m5m_dev_create(NULL);
 *	ctx = m5m_open(dev);		then the public verbs API
 *	...
 *	ibv_close_device(ctx);
 *	m5m_dev_destroy(dev);
 *
 * What it does, in one paragraph: WQEs are decoded from the mlx5_hw.h
 * structs (never through backend code) and executed between MRs the model
 * registered, RC by loopback to another QP of the same model device, UD by
 * the address vector's QPN and Q_Key.  CQEs are written with ownership
 * parity, body first and op_own last.  A CQ arm state machine with per-CQ
 * moderation on a virtual clock writes completion EQEs to EQs; an EQ in the
 * ARMED state signals its MSI-X vector, an eventfd; a fake kernel IRQ
 * handler (m5m_irq_service) walks every EQ on a signalled vector and turns
 * completion EQEs into completion-channel events and async EQEs into async
 * events on the context's async fd.
 *
 * Determinism: the model runs in the caller's thread.  A send doorbell
 * executes the posted WQEs before the doorbell store returns; timers run
 * only when the test advances the virtual clock; interrupts are serviced
 * only when the test calls m5m_irq_service() (or starts the optional IRQ
 * thread).  One process-wide recursive lock serialises every entry point.
 *
 * Interpretations the public sources leave open (Linux v6.1
 * drivers/infiniband/hw/mlx5/cq.c, mlx5_ib_modify_cq, only hands cq_count
 * and cq_period to the firmware, whose semantics are the PRM's; see
 * docs/mlx5-model.md, "What the model is, and what it is not"), chosen
 * here and applied everywhere:
 *  - Moderation gates the event (the EQE), never the CQE write.
 *  - cq_max_count == 0 and cq_period == 0: no moderation, an armed CQ fires
 *    on its first matching CQE (what a CQ does after create).
 *  - cq_max_count == N > 0: fire once N CQEs were written since the last
 *    event.  cq_max_count == 0 with cq_period > 0: only the timer fires.
 *  - cq_period == P > 0 (µs): fire when P µs have passed since the first CQE
 *    after the last event (period mode EQE, the default) or since the newest
 *    CQE (period mode CQE).  cq_period == 0 with cq_max_count > 0: only the
 *    count fires; a lone CQE below the count waits for the next one.
 *  - Arming with matching CQEs pending after the armed ci fires at once
 *    if one of them was written before the last event (it was moderated
 *    once already) or moderation is satisfied; otherwise moderation keeps
 *    counting from the first CQE after the last event.  Moderation state
 *    (count, timer start) runs whether or not the CQ is armed.
 *  - A solicited arm fires for a CQE with the SE bit or an error CQE, under
 *    the same moderation, unless scqe_break_moderation is set (then such a
 *    CQE fires at once).
 *  - int_period (per MSI-X vector) is NOT mlx5 behaviour: mlx5 EQs have no
 *    moderation (Linux v6.1 include/linux/mlx5/mlx5_ifc.h, struct
 *    mlx5_ifc_eqc_bits, has no period or count field; the mlx4 EQ context
 *    in drivers/net/ethernet/mellanox/mlx4/eq.c has both).  It is a
 *    model-only interrupt throttle, off by default: at most one eventfd
 *    write per int_period µs per vector; requests inside the window are
 *    coalesced into one interrupt at its end.
 *  - bfreg 0 never takes BlueFlame; its doorbells may use either half (the
 *    halves must alternate on every other bfreg).
 *
 * Model self-tests that drive the CQ/EQ/vector machinery without a backend
 * use the internal interface at the end of m5m_int.h (m5m_test_*).
 */
#ifndef DOORBELL_TESTS_M5MODEL_H
#define DOORBELL_TESTS_M5MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct m5m_dev;

/* Completion moderation period modes (CQ context cq_period_mode). */
enum m5m_period_mode {
	M5M_PERIOD_FROM_EQE = 0, /* timer restarts when an event fires */
	M5M_PERIOD_FROM_CQE = 1, /* timer restarts on every CQE */
};

struct m5m_config {
	unsigned int num_ports; /* 1 or 2; default 1 */
	uint8_t link_layer;	/* IBV_LINK_LAYER_*; default INFINIBAND */
	bool roce_v1;		/* Ethernet: GID 0 is RoCE v1, not v2 */
	uint16_t lid;		/* port LID; default 1 + device number */
	/* node GUID; port p's GID is fe80::<node_guid + p>; 0: per device */
	uint64_t node_guid;
	enum ibv_mtu mtu; /* active MTU; default 4096 */
	/* completion EQs: one per comp_vector the contexts see */
	unsigned int num_comp_vectors; /* default 4, at most 64 */
	/*
	 * MSI-X vectors for the completion EQs (vector 0 is the async one).
	 * Completion EQ i sits on vector 1 + i % num_comp_msix: 1 means
	 * every completion EQ shares one vector, num_comp_vectors means one
	 * vector each (dedicated).  Default: num_comp_vectors.
	 */
	unsigned int num_comp_msix;
	unsigned int eq_nent;	    /* completion EQ size; default 1024 */
	unsigned int async_eq_nent; /* default 256 */
	/*
	 * EQEs the IRQ handler takes from one EQ per interrupt before it
	 * re-arms (MLX5_EQ_POLLING_BUDGET, default 128).  0: no budget, the
	 * handler empties the EQ and writes an update-only (no arm) doorbell
	 * every 128 EQEs, as older kernels did.
	 */
	unsigned int irq_budget;
	uint32_t bf_reg_size;	    /* default 512; 0 = no write combining */
	uint8_t cqe_version;	    /* device capability; default 1 */
	bool atomic;		    /* reports IBV_ATOMIC_HCA; default true */
	bool cq_moderation;	    /* MODIFY_CQ works; default true */
	bool scqe_break_moderation; /* default false */
	enum m5m_period_mode period_mode; /* default FROM_EQE */
	bool strict;			  /* default true */
	/*
	 * A kernel before dynamic UARs: MLX5_LIB_CAP_DYN_UAR is ignored,
	 * static bfregs are always given, and there are no UAR objects.
	 */
	bool no_dyn_uar; /* default false */
	/*
	 * On-demand paging: odp_caps say IBV_ODP_SUPPORT with RC send, recv,
	 * write, read and atomics, and IBV_ACCESS_ON_DEMAND MRs register
	 * (the model reaches host memory directly, so they work as pinned
	 * ones).  Default false: ON_DEMAND MRs are EOPNOTSUPP.
	 */
	bool odp;
	/*
	 * Test only: the Nth write of received data into memory (a receive's
	 * scatter, an RDMA write's or read's target, an atomic's result;
	 * counted from 1) has its first byte flipped, so that the checks of
	 * the bytes that arrived can be shown to fail.  Default 0: never.
	 */
	uint64_t corrupt_write;
};

/* Defaults as documented above. */
void m5m_config_default(struct m5m_config *cfg);

/* NULL cfg: defaults.  NULL (errno set) on failure. */
struct m5m_dev *m5m_dev_create(const struct m5m_config *cfg);
/* Closes every fd the model owns; contexts must be closed first. */
void m5m_dev_destroy(struct m5m_dev *dev);

/*
 * Open a context on the model: a doorbell device (backend mlx5) whose
 * alloc_context runs against the fake kernel.  Close it with
 * ibv_close_device().  NULL (errno set) on failure.
 */
struct ibv_context *m5m_open(struct m5m_dev *dev);

/*
 * A completion channel (ibv_create_comp_channel needs a real uverbs fd).
 * Its fd is the read end of a pipe the fake kernel writes struct
 * ib_uverbs_comp_event_desc to, so ibv_get_cq_event() works unchanged.
 */
struct ibv_comp_channel *m5m_create_comp_channel(struct m5m_dev *dev,
						 struct ibv_context *ctx);
/* EBUSY while a CQ uses it (as ibv_destroy_comp_channel). */
int m5m_destroy_comp_channel(struct m5m_dev *dev,
			     struct ibv_comp_channel *channel);

/* --- Virtual clock (µs) --------------------------------------------- */
uint64_t m5m_now(struct m5m_dev *dev);
/* Run every timer due up to now + us, in deadline order. */
void m5m_clock_advance(struct m5m_dev *dev, uint64_t us);
/*
 * The device's internal timer runs at M5M_CORE_CLOCK_KHZ ticks a
 * millisecond of the virtual clock (the hca_core_clock the fake kernel
 * reports): each completion CQE carries it, and the timer page the fake
 * kernel maps shows it.
 */
#define M5M_CORE_CLOCK_KHZ 156250u
/* The earliest pending timer deadline, or UINT64_MAX if none. */
uint64_t m5m_next_deadline(struct m5m_dev *dev);
/* Finish deferred device writes (a split CQE's op_own). */
void m5m_step(struct m5m_dev *dev);
/*
 * Doorbell recovery: take every QP's receives up to its RCV dbrec (and
 * every SRQ's) and run its SQ up to its SND dbrec, as the device does on
 * the next doorbell, with no doorbell.  For builds whose device-memory
 * stores do not reach the model (the instruction-count bench compiles the
 * backend without DOORBELL_MLX5_MODEL): send doorbells, arms and their
 * order are not seen there and not checked.  Returns the WQEs executed.
 */
unsigned int m5m_doorbell_recovery(struct m5m_dev *dev);

/* --- Interrupts and the fake kernel IRQ handler --------------------------- */
unsigned int m5m_num_vectors(struct m5m_dev *dev); /* async + comp */
/* The eventfd of MSI-X vector vec (EFD_NONBLOCK|EFD_CLOEXEC). */
int m5m_vector_fd(struct m5m_dev *dev, unsigned int vec);
/* The MSI-X vector serving completion vector comp_vector. */
unsigned int m5m_comp_vector_msix(struct m5m_dev *dev,
				  unsigned int comp_vector);
/*
 * The kernel's interrupt handler: for every vector whose eventfd is
 * signalled, walk every EQ on it, consume EQEs (budget, update-only
 * doorbell every 128, arm at the end) and write completion-channel and
 * async events.  Returns the number of interrupts handled.
 */
unsigned int m5m_irq_service(struct m5m_dev *dev);
/*
 * Poll the EQs of vector vec without an interrupt (the kernel's EQ
 * recovery after a lost MSI-X).  Returns the EQEs consumed.
 */
unsigned int m5m_irq_recover(struct m5m_dev *dev, unsigned int vec);
/* Optional: a thread that waits on the vector eventfds and services them. */
int m5m_irq_thread_start(struct m5m_dev *dev);
void m5m_irq_thread_stop(struct m5m_dev *dev);
/* Model-only interrupt throttle (see the top of this file); 0 = off. */
void m5m_set_int_period(struct m5m_dev *dev, unsigned int vec, uint32_t us);

/* --- Counters ------------------------------------------------------------- */
struct m5m_vec_stats {
	uint64_t raised;     /* eventfd writes (interrupts sent) */
	uint64_t handled;    /* interrupts the handler took */
	uint64_t spurious;   /* handled with no EQE found */
	uint64_t lost;	     /* dropped by fault injection */
	uint64_t duplicated; /* raised twice by fault injection */
	uint64_t throttled;  /* requests merged by int_period */
};

struct m5m_stats {
	uint64_t wqes; /* send WQEs executed */
	/* slow device: WQEs that changed between execution and completion */
	uint64_t wqe_rewritten;
	/* slow device: WQEs completed at a tick after the one that ran them,
	 * and of those the READs and atomics whose response landed then */
	uint64_t slow_late;
	uint64_t slow_held;
	uint64_t doorbells; /* send doorbells (64-bit or BlueFlame) */
	uint64_t bf_doorbells;
	uint64_t dropped_doorbells;
	uint64_t cqes;		 /* CQEs written */
	uint64_t cq_events;	 /* CQ FIRED transitions (COMP EQEs) */
	uint64_t eqes;		 /* EQEs written, all EQs */
	uint64_t eqes_consumed;	 /* EQEs the handler consumed */
	uint64_t channel_events; /* comp events written to channels */
	uint64_t async_events;	 /* async events written to async fds */
	uint64_t rnr_naks;
	/* RC and XRC messages no responder acknowledged (m5m_no_ack) */
	uint64_t ack_timeouts;
	uint64_t ud_dropped;
	/* UC messages the responder dropped: no QP, no receive WQE, or a
	 * bad RDMA WRITE (UC has no NAK; the requester completes) */
	uint64_t uc_dropped;
	/* RoCE (m5m_wire_*.c): packets sent and taken, go-back-N resends */
	uint64_t wire_packets;
	uint64_t wire_received;
	uint64_t wire_resends;
	/* ODP faults on SRQ WQEs the kernel's handler read, and of those
	 * the ones it resumed with an error (a WQE it could not map) */
	uint64_t odp_pfaults_handled;
	uint64_t odp_resume_errors;
	/* CQE write -> channel event, virtual µs */
	uint64_t lat_count;
	uint64_t lat_sum;
	uint64_t lat_max;
	/* kernel commands */
	uint64_t query_device_cmds; /* EX_QUERY_DEVICE answered */
	uint64_t cq_resizes;	    /* RESIZE_CQ commands that moved a CQ */
};

void m5m_get_stats(struct m5m_dev *dev, struct m5m_stats *out);

/*
 * Dynamic UARs: the UAR objects a context holds now; the page id of the
 * UAR a QP (by QPN) or CQ was created on, -1 with static UARs or if no
 * such object.
 */
unsigned int m5m_live_uars(struct m5m_dev *dev, struct ibv_context *ctx);
int64_t m5m_qp_uar_page(struct m5m_dev *dev, uint32_t qpn);
int64_t m5m_cq_uar_page(struct m5m_dev *dev, struct ibv_cq *cq);
/* The type (MLX5_IB_UAPI_UAR_ALLOC_TYPE_*) of the UAR at page id pg. */
int m5m_uar_type(struct m5m_dev *dev, struct ibv_context *ctx, uint32_t pg);
int m5m_get_vec_stats(struct m5m_dev *dev, unsigned int vec,
		      struct m5m_vec_stats *out);
void m5m_reset_stats(struct m5m_dev *dev);

/* Called for every completion-channel event (in the handler's thread). */
struct m5m_event_info {
	uint64_t cq_handle; /* what the channel carries */
	uint32_t cqn;
	unsigned int eqn;
	unsigned int vector;
	uint64_t now;	  /* virtual µs */
	uint64_t latency; /* µs since the first CQE the event covers */
};
void m5m_set_event_hook(struct m5m_dev *dev,
			void (*hook)(void *arg, const struct m5m_event_info *),
			void *arg);

/* A CQ as the model sees it, for tests. */
struct m5m_cq_info {
	uint32_t cqn;
	uint32_t ncqe;
	uint32_t producer; /* CQEs written, free-running */
	int state;	   /* 0 disarmed, 1 armed, 2 armed(sol), 3 fired */
	uint64_t events;   /* times it fired */
	uint16_t cq_max_count;
	uint16_t cq_period;
	bool overrun;
	uint8_t arm_sn; /* the sn of the last arm doorbell taken */
};
int m5m_cq_info(struct m5m_dev *dev, struct ibv_cq *cq,
		struct m5m_cq_info *out);

/*
 * Port identity, for UD address handles.  An InfiniBand port has
 * M5M_IB_PORT_GIDS GIDs, fe80::<M5M_PORT_GUID(node GUID, port, index)>; a
 * RoCE port has one.  The software ConnectX's GUIDInfo gives the same.
 */
#define M5M_IB_PORT_GIDS 2
#define M5M_PORT_GUID(node, port, index)                                       \
	((node) + (port) + ((uint64_t)(index) << 32))
unsigned int m5m_port_gids(struct m5m_dev *dev);
bool m5m_port_gid_at(struct m5m_dev *dev, unsigned int port, unsigned int index,
		     union ibv_gid *gid);
void m5m_port_gid(struct m5m_dev *dev, unsigned int port, union ibv_gid *gid);
uint16_t m5m_port_lid(struct m5m_dev *dev, unsigned int port);

/* --- Fault injection and checking ----------------------------------------- */
enum m5m_fault {
	/* The next N send doorbells are ignored; their WQEs run at the
	 * next doorbell that arrives, from the SND dbrec. */
	M5M_FAULT_DROP_DOORBELL,
	/* The next N CQEs stay invisible until the clock advances (later
	 * CQEs queue behind them, so order is kept). */
	M5M_FAULT_DELAY_CQE,
	/* The next N CQEs get their body now and op_own at the next model
	 * step (any seam call, m5k_* call, m5m_step/clock/irq call). */
	M5M_FAULT_SPLIT_CQE,
	/* The next N MSI-X messages are lost (the EQ stays FIRED). */
	M5M_FAULT_LOSE_IRQ,
	/* The next N MSI-X messages arrive twice (after the handler ran). */
	M5M_FAULT_DUP_IRQ,
	/* The next N rkey operations fail at the responder with a remote
	 * access error (as a real one: both QPs go to ERR). */
	M5M_FAULT_REMOTE_ACCESS,
	/* The next N receive-consuming RC messages get an RNR NAK. */
	M5M_FAULT_RNR,
	/*
	 * The next N RC messages that take an SRQ WQE hit an ODP page fault
	 * at the responder: the device takes the WQE, writes a RESP_ERR CQE
	 * with syndrome REMOTE_ABORTED and vendor syndrome ODP_PFAULT (0x93)
	 * and answers RNR NAK; the requester retries after the RNR timer, or
	 * when the SRQ gets a WQE (the provider posts the faulted one again).
	 */
	M5M_FAULT_ODP_PFAULT,
	/*
	 * The next N CQ resizes (MODIFY_CQ) move the CQ without writing the
	 * RESIZE CQE that ends the old ring (its counter is used all the
	 * same), or write in its place a CQE of opcode 9, which mlx5 does not
	 * define: devices that break the resize protocol.
	 */
	M5M_FAULT_NO_RESIZE_CQE,
	M5M_FAULT_BAD_RESIZE_CQE,
	M5M_FAULT_COUNT
};
void m5m_inject(struct m5m_dev *dev, enum m5m_fault fault, unsigned int n);

/*
 * Strict (the default for tests): a failed check prints a decoded dump
 * (the WQE per 16-byte segment, CQE fields, this thread's seam events)
 * and aborts.  Lenient: the failure is printed, counted and the model
 * carries on as hardware would.
 */
void m5m_set_strict(struct m5m_dev *dev, bool strict);
/* M5M_LENIENT=1 in the environment makes new devices lenient (debugging). */
uint64_t m5m_violations(struct m5m_dev *dev);
/* Silence the per-violation report in lenient mode (counting goes on). */
void m5m_set_quiet(struct m5m_dev *dev, bool quiet);

#endif /* DOORBELL_TESTS_M5MODEL_H */
