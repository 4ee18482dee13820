// text.h — test helpers: a message (base/message.h) as English or Chinese text.
#pragma once
#include <string>

#include "base/message.h"

inline std::string en(const lab::Msg& m) { return lab::render(m, lab::Lang::En); }
inline std::string zh(const lab::Msg& m) { return lab::render(m, lab::Lang::Zh); }
