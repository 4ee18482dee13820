// archive.h — Attention Lab interop: several files as one download, an uncompressed
// tar (POSIX ustar) that `tar xf`, Python's tarfile and every archive tool read.
//
//   std::string tar = tar_archive({{"ckpt/manifest.json", text}, {"ckpt/final/x.npy", bytes}});
//   std::vector<ArchiveFile> back;  read_tar(tar, &back, &error);
//
// Regular files only (tar tools create the folders a path names); times are 0 so the
// same files give the same bytes.
#pragma once
#include <string>
#include <vector>

namespace lab {

struct ArchiveFile {
    std::string path;   // "folder/name", '/'-separated, at most 255 bytes
    std::string bytes;
};

// The archive; a path too long for ustar (over 100 bytes with no '/' to split it at
// 155) gives "" and the path in *error.
std::string tar_archive(const std::vector<ArchiveFile>& files, std::string* error = nullptr);
// The regular files of a ustar archive (what tar_archive writes); false with the reason
// for anything else (a bad checksum, a truncated member).
bool read_tar(const std::string& tar, std::vector<ArchiveFile>* files, std::string* error);

}  // namespace lab
