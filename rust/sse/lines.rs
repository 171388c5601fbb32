//! Byte-level line handling: the stream-start BOM and line terminators (CRLF, LF, CR).

/// The UTF-8 byte order mark, dropped once at the start of a stream.
pub(super) const BOM: &[u8; 3] = b"\xEF\xBB\xBF";

/// Where the decoder is in recognising a BOM at the start of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bom {
    /// Still at the start of the stream; this many bytes of the BOM have arrived.
    Matching(usize),
    /// The BOM was dropped, or the stream did not start with one.
    Done,
}

/// What [`Bom::advance`] made of the start of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BomStep {
    /// The whole chunk was a (still partial) BOM.
    NeedMore,
    /// The BOM is complete and dropped; line bytes start at this index of the chunk.
    Dropped(usize),
    /// Not a BOM: the first `held` bytes of the stream (a BOM prefix, possibly from earlier
    /// chunks) are line bytes after all, and the chunk goes on at index `resume`.
    NotBom { held: usize, resume: usize },
}

impl Bom {
    /// Matches the start of `chunk` against the rest of the BOM.
    pub(super) fn advance(&mut self, chunk: &[u8]) -> BomStep {
        let Self::Matching(mut matched) = *self else {
            return BomStep::Dropped(0);
        };
        let mut pos = 0;
        while matched < BOM.len() && pos < chunk.len() && chunk[pos] == BOM[matched] {
            matched += 1;
            pos += 1;
        }
        if matched == BOM.len() {
            *self = Self::Done;
            BomStep::Dropped(pos)
        } else if pos == chunk.len() {
            *self = Self::Matching(matched);
            BomStep::NeedMore
        } else {
            *self = Self::Done;
            BomStep::NotBom {
                held: matched,
                resume: pos,
            }
        }
    }

    /// The BOM prefix held back while undecided.
    pub(super) fn held(self) -> &'static [u8] {
        match self {
            Self::Matching(n) => &BOM[..n],
            Self::Done => b"",
        }
    }
}

/// The CR and LF bytes of `block`, as a bit mask (bit `k` for byte `k`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn terminators16(block: &[u8; 16]) -> u32 {
    crate::simd::any_of16(block, *b"\n\r")
}

/// The index of the first CR or LF in `bytes`: 16 bytes at a time with SSE2 (x86-64) over the
/// first 256, else word by word over the first 64 (most SSE lines are short, where a library
/// SIMD search costs more to set up than it saves), then the library's search.
#[inline]
pub(super) fn find_terminator(bytes: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |w: u64| w.wrapping_sub(LO) & !w & HI;
    let mut i = 0;
    #[cfg(target_arch = "x86_64")]
    while i < 256 {
        let Some(block) = bytes.get(i..).and_then(|rest| rest.first_chunk::<16>()) else {
            break;
        };
        let hits = terminators16(block);
        if hits != 0 {
            return Some(i + hits.trailing_zeros() as usize);
        }
        i += 16;
    }
    while i < 64 {
        let Some(word) = bytes.get(i..).and_then(|rest| rest.first_chunk::<8>()) else {
            // fewer than eight bytes left: one by one
            let rest = &bytes[i.min(bytes.len())..];
            return rest.iter().position(|&b| is_terminator(b)).map(|k| i + k);
        };
        let w = u64::from_le_bytes(*word);
        let hits = zero_byte(w ^ (LO * u64::from(b'\n'))) | zero_byte(w ^ (LO * u64::from(b'\r')));
        if hits != 0 {
            // the lowest flagged byte is exact
            return Some(i + (hits.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr::memchr2(b'\n', b'\r', &bytes[i..]).map(|k| i + k)
}

fn is_terminator(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// The CR and LF bytes of `bytes[at..at + 16]` (fewer at the end), as a bit mask.
#[inline(always)]
fn block_terminators(bytes: &[u8], at: usize) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(block) = bytes.get(at..).and_then(|rest| rest.first_chunk::<16>()) {
        return terminators16(block);
    }
    let tail = bytes.get(at..).unwrap_or_default();
    tail.iter()
        .take(16)
        .enumerate()
        .fold(0, |mask, (k, &b)| mask | u32::from(is_terminator(b)) << k)
}

/// The indices of the CR and LF bytes of a slice, in order, found 16 bytes at a time: a run of
/// short lines costs a few instructions a line instead of a search call each.
pub(super) struct Terminators<'a> {
    bytes: &'a [u8],
    /// Start of the block that `mask` covers.
    base: usize,
    /// The terminators of that block not returned yet (bit `k` for byte `base + k`).
    mask: u32,
}

impl<'a> Terminators<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            base: 0,
            mask: block_terminators(bytes, 0),
        }
    }
}

impl Iterator for Terminators<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.base += 16;
            if self.base >= self.bytes.len() {
                return None;
            }
            self.mask = block_terminators(self.bytes, self.base);
        }
        let k = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.base + k)
    }
}

/// The index of the last CR or LF in `bytes` (a tiny chunk's few bytes one by one, without a
/// SIMD search's setup).
#[inline]
pub(super) fn rfind_terminator(bytes: &[u8]) -> Option<usize> {
    if bytes.len() < 16 {
        return bytes.iter().rposition(|&b| is_terminator(b));
    }
    memchr::memrchr2(b'\n', b'\r', bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_whole_and_split() {
        let mut bom = Bom::Matching(0);
        assert_eq!(bom.advance(b"\xEF\xBB\xBFdata"), BomStep::Dropped(3));
        assert_eq!(bom, Bom::Done);

        let mut bom = Bom::Matching(0);
        assert_eq!(bom.advance(b"\xEF"), BomStep::NeedMore);
        assert_eq!(bom.held(), b"\xEF");
        assert_eq!(bom.advance(b""), BomStep::NeedMore);
        assert_eq!(bom.advance(b"\xBB\xBF"), BomStep::Dropped(2));
    }

    #[test]
    fn not_a_bom() {
        let mut bom = Bom::Matching(0);
        assert_eq!(bom.advance(b"data"), BomStep::NotBom { held: 0, resume: 0 });
        let mut bom = Bom::Matching(0);
        assert_eq!(bom.advance(b"\xEF\xBB"), BomStep::NeedMore);
        assert_eq!(bom.advance(b"x"), BomStep::NotBom { held: 2, resume: 0 });
        let mut bom = Bom::Matching(0);
        assert_eq!(
            bom.advance(b"\xEF\xBBx"),
            BomStep::NotBom { held: 2, resume: 2 }
        );
    }

    #[test]
    fn terminators() {
        for len in 0..200 {
            for at in 0..len {
                for t in [b'\n', b'\r'] {
                    let mut line = vec![b'x'; len];
                    line[at] = t;
                    if at + 1 < len {
                        line[at + 1] = b'\n';
                    }
                    assert_eq!(find_terminator(&line), Some(at), "{len} {at}");
                }
            }
            assert_eq!(find_terminator(&vec![0x8a; len]), None);
        }
        for len in [255, 256, 257, 300, 1000] {
            for at in [0, 15, 16, 63, 64, 255, 256, len - 1] {
                let mut line = vec![b'x'; len];
                line[at.min(len - 1)] = b'\r';
                assert_eq!(find_terminator(&line), Some(at.min(len - 1)), "{len} {at}");
            }
        }
        assert_eq!(find_terminator(b"ab\rc\n"), Some(2));
        assert_eq!(rfind_terminator(b"ab\rc\nd"), Some(4));
        for len in 0..40 {
            let mut text = vec![b'x'; len];
            assert_eq!(rfind_terminator(&text), None);
            for at in 0..len {
                text[at] = if at % 2 == 0 { b'\n' } else { b'\r' };
                assert_eq!(rfind_terminator(&text), Some(at), "{len} {at}");
            }
        }
        assert_eq!(find_terminator(b"abc"), None);
    }

    #[test]
    fn every_terminator_in_order() {
        for len in 0..70 {
            for seed in 0..7usize {
                let text: Vec<u8> = (0..len)
                    .map(|k| match (k * 7 + seed * 13) % (seed + 3) {
                        0 => b'\n',
                        1 if seed % 2 == 0 => b'\r',
                        _ => b'x',
                    })
                    .collect();
                let want: Vec<usize> = (0..len).filter(|&k| is_terminator(text[k])).collect();
                let got: Vec<usize> = Terminators::new(&text).collect();
                assert_eq!(got, want, "{len} {seed}");
            }
        }
    }
}
