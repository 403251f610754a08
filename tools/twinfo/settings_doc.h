/* The settings document, docs/settings.md, printed from the settings table. */
#ifndef TWINFO_SETTINGS_DOC_H
#define TWINFO_SETTINGS_DOC_H

void settings_markdown(void);

#endif
