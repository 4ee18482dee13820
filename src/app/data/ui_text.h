// ui_text.h — Attention Lab app: the app's string table (src/app/data/strings/*.def): what
// only the app or the page says (panels, tooltips, the experiments' titles and legends,
// the page's loader and error overlays). Read like the core's (base/i18n.h); a Msg
// (base/message.h) may hold entries of both.
//
// The app draws its texts in app.text_lang, the language the interface shows (Chinese
// once its font is there); tr(app, id) is that entry in that language.
#pragma once
#include "base/i18n.h"
#include "base/message.h"

namespace lab {

enum class UiStr : int {
#define LAB_STR(key, en, zh) key,
#include "app/data/strings/all.def"
#undef LAB_STR
    Count_
};
constexpr int kUiStrCount = static_cast<int>(UiStr::Count_);

const TextTable& ui_text_table();
inline const TextEntry& text_entry(UiStr id) { return ui_text_table().at(id); }
inline const char* tr(UiStr id, Lang lang) { return text_entry(id).text[static_cast<int>(lang)]; }

}  // namespace lab
