// message.cpp — Attention Lab core: rendering a message in a language.
#include "base/message.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace lab {

namespace {

// One printf conversion: "%" flags width precision [length] conversion.
struct Conversion {
    std::string head;   // "%", flags, width and precision: "%-8", "%.3", "%04"
    std::string length; // "", "l", "ll", "z", ...
    char type = 's';
};

std::string printf_one(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_one(const char* format, ...) {
    char buf[256];
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    if (n < static_cast<int>(sizeof buf)) return std::string(buf, n > 0 ? static_cast<size_t>(n) : 0);
    std::string big(static_cast<size_t>(n) + 1, '\0');
    va_start(args, format);
    std::vsnprintf(&big[0], big.size(), format, args);
    va_end(args);
    big.resize(static_cast<size_t>(n));
    return big;
}

// The argument as text, for %s (numbers as printf's %lld / %g would write them).
std::string as_text(const MsgArg& a, Lang lang) {
    switch (a.kind) {
        case MsgArg::Text: return a.text;
        case MsgArg::Nested: return a.nested.empty() ? std::string() : render(a.nested[0], lang);
        case MsgArg::Whole: return std::to_string(a.whole);
        case MsgArg::Real: return printf_one("%g", a.real);
    }
    return "";
}

long long as_whole(const MsgArg& a) {
    return a.kind == MsgArg::Real ? static_cast<long long>(a.real) : a.whole;
}

// Formats one argument with its conversion, keeping printf's integer widths: a value
// printed with %d wraps as an int would, %u as an unsigned int, %lu as unsigned long.
std::string format_one(const Conversion& c, const MsgArg& a, Lang lang) {
    const bool numeric = a.kind == MsgArg::Whole || a.kind == MsgArg::Real;
    if (c.type == 's' || c.type == 'c' || !numeric) return printf_one((c.head + "s").c_str(), as_text(a, lang).c_str());
    if (std::strchr("fFeEgGaA", c.type)) {
        const double v = a.kind == MsgArg::Real ? a.real : static_cast<double>(a.whole);
        return printf_one((c.head + c.type).c_str(), v);
    }
    const long long v = as_whole(a);
    const bool is_long = c.length == "l", is_plain = c.length.empty();
    if (c.type == 'd' || c.type == 'i') {
        const long long s = is_plain ? static_cast<int>(v) : is_long ? static_cast<long>(v) : v;
        return printf_one((c.head + "lld").c_str(), s);
    }
    const unsigned long long u = is_plain  ? static_cast<unsigned int>(v)
                                 : is_long ? static_cast<unsigned long>(v)
                                           : static_cast<unsigned long long>(v);
    return printf_one((c.head + "ll" + c.type).c_str(), u);
}

// Reads the conversion starting at f[i] == '%'; returns the index after it.
size_t read_conversion(const char* f, size_t i, Conversion* c) {
    size_t j = i + 1;
    while (f[j] && std::strchr("-+ #0123456789.*", f[j])) ++j;
    c->head.assign(f + i, j - i);
    const size_t len_start = j;
    while (f[j] && std::strchr("hlLqjzt", f[j])) ++j;
    c->length.assign(f + len_start, j - len_start);
    c->type = f[j] ? f[j] : 's';
    return f[j] ? j + 1 : j;
}

std::string format_entry(const char* f, const std::vector<MsgArg>& args, Lang lang) {
    std::string out;
    size_t next_arg = 0;
    for (size_t i = 0; f[i];) {
        if (f[i] != '%') {
            out += f[i++];
            continue;
        }
        if (f[i + 1] == '%') {
            out += '%';
            i += 2;
            continue;
        }
        Conversion c;
        const size_t end = read_conversion(f, i, &c);
        if (next_arg < args.size()) out += format_one(c, args[next_arg++], lang);
        else out.append(f + i, end - i);  // no argument: the conversion stays visible
        i = end;
    }
    return out;
}

}  // namespace

std::string render(const Msg& m, Lang lang) {
    std::string out = m.entry_ ? format_entry(m.entry_->text[static_cast<int>(lang)], m.args_, lang) : m.literal_;
    for (const Msg& next : m.tail_) out += render(next, lang);
    return out;
}

}  // namespace lab
