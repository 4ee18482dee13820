// archive.cpp — Attention Lab interop: ustar archives (the layout of POSIX.1-1988's
// tar header: 512-byte blocks, octal numbers, the checksum over the header with its own
// field read as spaces).
#include "interop/archive.h"

#include <cstdio>
#include <cstring>

namespace lab {

namespace {

constexpr size_t kBlock = 512;

// Header fields: offset and width.
struct Field {
    size_t at, width;
};
constexpr Field kName{0, 100}, kMode{100, 8}, kUid{108, 8}, kGid{116, 8}, kSize{124, 12}, kMtime{136, 12},
    kChecksum{148, 8}, kType{156, 1}, kMagic{257, 6}, kVersion{263, 2}, kPrefix{345, 155};

void put_text(std::string& h, Field f, const std::string& text) { h.replace(f.at, text.size(), text); }

// An octal number filling the field but its last byte (NUL).
void put_octal(std::string& h, Field f, unsigned long long v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%0*llo", static_cast<int>(f.width - 1), v);
    put_text(h, f, buf);
}

unsigned long long header_sum(const std::string& h) {
    unsigned long long sum = 0;
    for (size_t i = 0; i < kBlock; ++i)
        sum += i >= kChecksum.at && i < kChecksum.at + kChecksum.width ? ' ' : static_cast<unsigned char>(h[i]);
    return sum;
}

// Splits a path into ustar's prefix (up to 155 bytes) and name (up to 100) at a '/'.
bool split_path(const std::string& path, std::string* prefix, std::string* name) {
    if (path.empty()) return false;
    if (path.size() <= kName.width) return *prefix = "", *name = path, true;
    for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
        if (slash <= kPrefix.width && path.size() - slash - 1 <= kName.width && slash + 1 < path.size())
            return *prefix = path.substr(0, slash), *name = path.substr(slash + 1), true;
    return false;
}

std::string header(const std::string& prefix, const std::string& name, size_t size) {
    std::string h(kBlock, '\0');
    put_text(h, kName, name);
    put_octal(h, kMode, 0644);
    put_octal(h, kUid, 0);
    put_octal(h, kGid, 0);
    put_octal(h, kSize, size);
    put_octal(h, kMtime, 0);
    put_text(h, kType, "0");
    put_text(h, kMagic, std::string("ustar") + '\0');
    put_text(h, kVersion, "00");
    put_text(h, kPrefix, prefix);
    char sum[8];
    std::snprintf(sum, sizeof sum, "%06llo", header_sum(h));  // six digits, NUL, then the space below
    put_text(h, kChecksum, std::string(sum, 7) + ' ');
    return h;
}

std::string field_text(const std::string& h, Field f) {
    const std::string raw = h.substr(f.at, f.width);
    return raw.substr(0, raw.find('\0'));
}

bool field_octal(const std::string& h, Field f, unsigned long long* out) {
    unsigned long long v = 0;
    bool digits = false;
    for (char ch : field_text(h, f)) {
        if (ch == ' ' && !digits) continue;
        if (ch == ' ') break;
        if (ch < '0' || ch > '7') return false;
        v = v * 8 + static_cast<unsigned>(ch - '0'), digits = true;
    }
    return *out = v, digits;
}

}  // namespace

std::string tar_archive(const std::vector<ArchiveFile>& files, std::string* error) {
    std::string out;
    for (const ArchiveFile& f : files) {
        std::string prefix, name;
        if (!split_path(f.path, &prefix, &name)) {
            if (error) *error = "path too long for a tar archive: " + f.path;
            return "";
        }
        out += header(prefix, name, f.bytes.size());
        out += f.bytes;
        out.append((kBlock - f.bytes.size() % kBlock) % kBlock, '\0');
    }
    out.append(2 * kBlock, '\0');  // the end: two empty blocks
    return out;
}

bool read_tar(const std::string& tar, std::vector<ArchiveFile>* files, std::string* error) {
    files->clear();
    for (size_t at = 0; at + kBlock <= tar.size();) {
        const std::string h = tar.substr(at, kBlock);
        if (h.find_first_not_of('\0') == std::string::npos) return true;  // the end
        unsigned long long size = 0, sum = 0;
        if (!field_octal(h, kChecksum, &sum) || sum != header_sum(h) || !field_octal(h, kSize, &size)) {
            if (error) *error = "bad tar header at byte " + std::to_string(at);
            return false;
        }
        if (size > tar.size() - at - kBlock) {
            if (error) *error = "tar member at byte " + std::to_string(at) + " is cut short";
            return false;
        }
        const std::string prefix = field_text(h, kPrefix), type = field_text(h, kType);
        if (type.empty() || type == "0")
            files->push_back({(prefix.empty() ? "" : prefix + "/") + field_text(h, kName), tar.substr(at + kBlock, size)});
        at += kBlock + (size + kBlock - 1) / kBlock * kBlock;
    }
    if (error) *error = "the tar archive has no end blocks";
    return false;
}

}  // namespace lab
