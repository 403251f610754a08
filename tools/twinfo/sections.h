/* The sections of twinfo's report, each written through report.h. */
#ifndef TWINFO_SECTIONS_H
#define TWINFO_SECTIONS_H

#include "report.h"

void section_version(report_t *r);
void section_build(report_t *r);
void section_paths(report_t *r);
void section_mpi(report_t *r);
/* Tollway's own ABI and the faces of others' (src/common/abi_faces.h): built or not,
 * where, and whose programs each serves. */
void section_abi(report_t *r);
void section_links(report_t *r);
void section_process_managers(report_t *r);
void section_node(report_t *r);
void section_device(report_t *r);
/* The MPI-IO hints that act: default, values taken, what each does. */
void section_io(report_t *r);
/* Every TW_* setting: its value, and whether the environment or the default gave it. */
void section_settings(report_t *r);

#endif
