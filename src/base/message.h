// message.h — Attention Lab core: a text as data — a string-table entry plus typed
// arguments — so the core never decides the language a learner reads.
//
//   Msg m(Str::chk_finite_label, "q");                  // "all values of q are finite"
//   Msg d(Str::cfg_too_small, "batch", 0, Str::cfg_what_batch);   // a nested entry as %s
//   m.then(Msg::literal(" (B=2)"));                      // said right after it
//   render(m, Lang::Zh)                                  // "q 的所有值都是有限数"
//
// Arguments are whole numbers, real numbers, strings and nested messages (an entry id
// or a Msg); render() formats each with its printf conversion in the entry's text of
// the given language, so both languages print the same numbers the same way. A
// literal message is text that is the same in every language: code, math, numbers.
// The app, the CLI (English) and the exports (the interface language) call render().
#pragma once
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/i18n.h"

namespace lab {

class Msg;

// One argument of a message.
struct MsgArg {
    enum Kind { Whole, Real, Text, Nested } kind = Whole;
    long long whole = 0;
    double real = 0;
    std::string text;
    std::vector<Msg> nested;  // Nested: exactly one message
};

class Msg {
public:
    Msg() = default;  // says nothing
    // An entry of a string table (enum Str, or the app's UiStr) with its arguments.
    template <class Id, class... Args, class = std::enable_if_t<std::is_enum<Id>::value>>
    Msg(Id id, const Args&... args) : entry_(&text_entry(id)) {
        args_.reserve(sizeof...(Args));
        (args_.push_back(arg(args)), ...);
    }
    // Text that is the same in every language (code, math, names, numbers).
    static Msg literal(std::string text) {
        Msg m;
        m.literal_ = std::move(text);
        return m;
    }
    // Says `next` right after this message (a sentence added to a sentence).
    Msg& then(Msg next) {
        tail_.push_back(std::move(next));
        return *this;
    }
    bool empty() const { return !entry_ && literal_.empty() && tail_.empty(); }
    const TextEntry* entry() const { return entry_; }  // null for a literal
    const std::vector<MsgArg>& args() const { return args_; }

    friend std::string render(const Msg& m, Lang lang);

private:
    template <class T>
    static MsgArg arg(const T& v) {
        MsgArg a;
        if constexpr (std::is_same<T, Msg>::value) {
            a.kind = MsgArg::Nested, a.nested.push_back(v);
        } else if constexpr (std::is_enum<T>::value) {
            a.kind = MsgArg::Nested, a.nested.push_back(Msg(v));
        } else if constexpr (std::is_integral<T>::value) {
            a.kind = MsgArg::Whole, a.whole = static_cast<long long>(v);
        } else if constexpr (std::is_floating_point<T>::value) {
            a.kind = MsgArg::Real, a.real = static_cast<double>(v);
        } else {
            a.kind = MsgArg::Text, a.text = std::string(v);
        }
        return a;
    }

    const TextEntry* entry_ = nullptr;
    std::string literal_;
    std::vector<MsgArg> args_;
    std::vector<Msg> tail_;
};

// The message in `lang`: the entry's text with every printf conversion replaced by its
// argument (formatted as printf would), then the messages said after it.
std::string render(const Msg& m, Lang lang);

}  // namespace lab
