/* version.h: the tool's version and the JSON schema name. */
#ifndef TC_VERSION_H
#define TC_VERSION_H
#define TC_VERSION "0.1.0"
#define TC_SCHEMA "tracecost/1"
#endif
