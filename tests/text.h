// text.h — test helpers: a message (core/message.h) as English or Chinese text.
#pragma once
#include <string>

#include "core/message.h"

inline std::string en(const lab::Msg& m) { return lab::render(m, lab::Lang::En); }
inline std::string zh(const lab::Msg& m) { return lab::render(m, lab::Lang::Zh); }
