/* Tollway native API: the umbrella header. */
#ifndef TOLLWAY_H
#define TOLLWAY_H

#include <tollway/status.h>
#include <tollway/endpoint.h>
#include <tollway/velo.h>
#include <tollway/atu.h>
#include <tollway/notify.h>
#include <tollway/rma.h>
#include <tollway/settings.h>

#define TW_VERSION_MAJOR 0
#define TW_VERSION_MINOR 1
#define TW_VERSION_PATCH 0

#endif
