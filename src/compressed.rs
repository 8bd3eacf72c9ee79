//! Compressed inputs, read as what they hold, as `zcat` and `rg -z` read them: gzip, bzip2,
//! xz and zstd, known by their first bytes whatever the file is called, each decoded
//! through its maintained crate (`flate2`, `bzip2`, `liblzma`, `zstd`). A file of several
//! compressed members (`cat a.gz b.gz`) is read whole. Findings name the file as given; a
//! compressed file that is damaged stops its job with a read error naming it.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// A compression format of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// gzip (RFC 1952), `1f 8b`.
    Gzip,
    /// bzip2, `BZh` and the block size.
    Bzip2,
    /// xz, `fd 37 7a 58 5a 00`.
    Xz,
    /// Zstandard (RFC 8878), `28 b5 2f fd`.
    Zstd,
}

/// The most first bytes [`Compression::of`] looks at.
pub const MAGIC_BYTES: usize = 6;

impl Compression {
    /// The compression that `head`, the first bytes of an input, starts with.
    pub fn of(head: &[u8]) -> Option<Compression> {
        match head {
            [0x1f, 0x8b, ..] => Some(Compression::Gzip),
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Some(Compression::Bzip2),
            [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Some(Compression::Xz),
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Some(Compression::Zstd),
            _ => None,
        }
    }

    /// The compression of the file at `path`, by its first bytes.
    pub fn of_file(path: &Path) -> io::Result<Option<Compression>> {
        let mut head = Vec::with_capacity(MAGIC_BYTES);
        File::open(path)?
            .take(MAGIC_BYTES as u64)
            .read_to_end(&mut head)?;
        Ok(Compression::of(&head))
    }

    /// The format's name: `gzip`, `bzip2`, `xz`, `zstd`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }

    /// The file name extensions of the format, which say nothing of the bytes inside.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Compression::Gzip => &["gz", "tgz"],
            Compression::Bzip2 => &["bz2"],
            Compression::Xz => &["xz"],
            Compression::Zstd => &["zst", "zstd"],
        }
    }

    /// What `compressed` holds, read as it is decompressed, every member of it.
    pub fn decoder<R: Read + Send + 'static>(
        self,
        compressed: R,
    ) -> io::Result<Box<dyn Read + Send>> {
        Ok(match self {
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(compressed)),
            Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(compressed)),
            Compression::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(compressed)),
            Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(compressed)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` compressed by the command `tool` (`gzip`, `bzip2`, `xz`, `zstd`), which the
    /// test runs: the decoders are checked against the real tools. `None` when the tool is
    /// missing.
    fn compressed_by(tool: &str, text: &[u8]) -> Option<Vec<u8>> {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let mut child = Command::new(tool)
            .arg("-c")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .ok()?;
        let mut stdin = child.stdin.take()?;
        let text = text.to_vec();
        let writer = std::thread::spawn(move || stdin.write_all(&text));
        let out = child.wait_with_output().ok()?;
        writer.join().ok()?.ok()?;
        out.status.success().then_some(out.stdout)
    }

    #[test]
    fn each_format_is_known_by_its_first_bytes_and_read_back_whole() {
        let text: Vec<u8> = (0..20_000)
            .flat_map(|i| format!("xn--bcher-kva.example {i}\n").into_bytes())
            .collect();
        for (tool, kind) in [
            ("gzip", Compression::Gzip),
            ("bzip2", Compression::Bzip2),
            ("xz", Compression::Xz),
            ("zstd", Compression::Zstd),
        ] {
            let Some(packed) = compressed_by(tool, &text) else {
                eprintln!("skipped: {tool} is not installed");
                continue;
            };
            assert_eq!(Compression::of(&packed), Some(kind), "{tool}");
            // Two members one after the other, as `cat a.gz b.gz` makes them.
            let mut twice = packed.clone();
            twice.extend_from_slice(&packed);
            let mut read = Vec::new();
            kind.decoder(io::Cursor::new(twice))
                .unwrap()
                .read_to_end(&mut read)
                .unwrap();
            assert_eq!(read.len(), text.len() * 2, "{tool}");
            assert_eq!(&read[..text.len()], &text[..], "{tool}");
            assert_eq!(&read[text.len()..], &text[..], "{tool}");
            // Damaged: an error, never a short read taken for the end.
            let mut cut = packed.clone();
            cut.truncate(packed.len() / 2);
            let mut read = Vec::new();
            let result = kind
                .decoder(io::Cursor::new(cut))
                .and_then(|mut d| d.read_to_end(&mut read));
            assert!(result.is_err(), "{tool}: a truncated stream read as whole");
        }
        assert_eq!(Compression::of(b"xn--bcher-kva.example\n"), None);
        assert_eq!(Compression::of(b"BZ"), None);
    }
}
