// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * query_device(_ex) answers what the serving backend serves: the kernel's
 * numbers, less the cap flags and fields of each feature the backend does
 * not declare in db_backend.serves.  An application that gates on a cap
 * then never takes a path the backend's verbs refuse (with EOPNOTSUPP).
 * docs/capabilities.md lists the fields per backend.
 */
#include <stddef.h>
#include <string.h>

#include "core/doorbell.h"

/* The cap flags of each feature: device_cap_flags(_ex) bits. */
static const struct {
	uint32_t feature;
	uint64_t flags;
} db_cap_flags[] = {
	{ DB_SERVES_MW, IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2A |
				IBV_DEVICE_MEM_WINDOW_TYPE_2B },
	{ DB_SERVES_MEM_MGT, IBV_DEVICE_MEM_MGT_EXTENSIONS },
	{ DB_SERVES_XRC, IBV_DEVICE_XRC },
	{ DB_SERVES_RAW, IBV_DEVICE_RAW_IP_CSUM | IBV_DEVICE_RAW_SCATTER_FCS |
				 IBV_DEVICE_PCI_WRITE_END_PADDING |
				 IBV_DEVICE_MANAGED_FLOW_STEERING },
};

/* Clear @len bytes at @off of @attr, if the caller's @size holds them. */
static void db_cap_clear(void *attr, size_t size, size_t off, size_t len)
{
	if (off + len <= size)
		memset((char *)attr + off, 0, len);
}

#define DB_CAP_CLEAR(attr, size, field)                                        \
	db_cap_clear(attr, size, offsetof(struct ibv_device_attr_ex, field),   \
		     sizeof(((struct ibv_device_attr_ex *)0)->field))

void db_mask_device_attr(const struct db_backend *be,
			 struct ibv_device_attr_ex *attr, size_t size)
{
	uint32_t lacks = ~be->serves;
	uint64_t flags = 0;
	size_t i;

	for (i = 0; i < sizeof(db_cap_flags) / sizeof(db_cap_flags[0]); i++)
		if (lacks & db_cap_flags[i].feature)
			flags |= db_cap_flags[i].flags;
	attr->orig_attr.device_cap_flags &= ~(unsigned int)flags;
	if (lacks & DB_SERVES_MW)
		attr->orig_attr.max_mw = 0;
	if (offsetof(struct ibv_device_attr_ex, device_cap_flags_ex) +
		    sizeof(attr->device_cap_flags_ex) <=
	    size)
		attr->device_cap_flags_ex &= ~flags;
	if (lacks & DB_SERVES_TIMESTAMP) {
		DB_CAP_CLEAR(attr, size, completion_timestamp_mask);
		DB_CAP_CLEAR(attr, size, hca_core_clock);
	}
	if (lacks & DB_SERVES_RAW) {
		DB_CAP_CLEAR(attr, size, tso_caps);
		DB_CAP_CLEAR(attr, size, raw_packet_caps);
	}
	if (lacks & DB_SERVES_RSS) {
		DB_CAP_CLEAR(attr, size, rss_caps);
		DB_CAP_CLEAR(attr, size, max_wq_type_rq);
	}
	if (lacks & DB_SERVES_PACING)
		DB_CAP_CLEAR(attr, size, packet_pacing_caps);
	if (lacks & DB_SERVES_TM)
		DB_CAP_CLEAR(attr, size, tm_caps);
	if (lacks & DB_SERVES_DM)
		DB_CAP_CLEAR(attr, size, max_dm_size);
	if (lacks & DB_SERVES_XRC)
		DB_CAP_CLEAR(attr, size, xrc_odp_caps);
}
