//! SSE2 byte-class masks over 16-byte blocks, shared by the SSE line splitter (`sse::lines`)
//! and the JSON scanner (`json_scan`).

/// The bytes of `block` equal to any of `targets`, as a bit mask (bit `k` for byte `k`).
/// Inlined with constant targets, this is one compare per target, the ORs and one movemask.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn any_of16<const N: usize>(block: &[u8; 16], targets: [u8; N]) -> u32 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_setzero_si128,
    };
    // SAFETY: SSE2 is in the x86-64 baseline, so these instructions exist on every CPU this
    // code runs on; the unaligned load reads exactly the 16 bytes of `block`.
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast());
        let hits = targets.iter().fold(_mm_setzero_si128(), |hits, &t| {
            _mm_or_si128(hits, _mm_cmpeq_epi8(v, _mm_set1_epi8(t as i8)))
        });
        _mm_movemask_epi8(hits) as u32
    }
}

/// Copies the leading plain bytes of `src` (JSON string text that needs no decoding: ASCII
/// from 0x20 up, no `"` and no `\\`) into the start of `dst`, which must be at least as long,
/// and returns their count: the index of the first other byte, or `src.len()`.
///
/// One pass: each 16-byte vector is loaded once, classified with three compares and stored
/// from the register, so a long run costs about what a copy of it costs. Copying the run only
/// after a search for its end (and a check of its bytes) read each block three times. With
/// `stream`, stores go around the cache (non-temporal: a destination of many megabytes is
/// not read back soon, and writing it through the cache first reads each of its lines in).
#[cfg(target_arch = "x86_64")]
pub(crate) fn copy_plain(src: &[u8], dst: &mut [std::mem::MaybeUninit<u8>], stream: bool) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8, _mm_sfence, _mm_storeu_si128, _mm_stream_si128,
    };
    assert!(dst.len() >= src.len(), "copy_plain: destination too short");
    let n = src.len();
    let s = src.as_ptr();
    let d = dst.as_mut_ptr().cast::<u8>();
    // SAFETY: SSE2 is in the x86-64 baseline. Every load reads 16 bytes at `s + k` with
    // `k + 16 <= n`, every store writes 16 bytes at `d + k` with `k + 16 <= n <= dst.len()`;
    // `_mm_stream_si128` is used only where `d + k` is 16-byte aligned (`k` moves in steps of 16
    // from the first aligned index), and `_mm_sfence` orders those stores before any later
    // store of this thread, as the other stores are ordered.
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let backslash = _mm_set1_epi8(b'\\' as i8);
        let space = _mm_set1_epi8(0x20);
        // signed: below 0x20 are the control bytes and, as negative numbers, 0x80-0xFF
        let bad = |v: __m128i| {
            _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                _mm_cmplt_epi8(v, space),
            )
        };
        let mut k = 0;
        let mut streamed = false;
        let head = d.align_offset(16);
        if stream && head != 0 && n >= 16 {
            let v = _mm_loadu_si128(s.cast());
            if _mm_movemask_epi8(bad(v)) == 0 {
                _mm_storeu_si128(d.cast(), v);
                k = head;
            }
        }
        let stream = stream && (d as usize + k).is_multiple_of(16);
        while k + 64 <= n {
            let p = s.add(k);
            let v0 = _mm_loadu_si128(p.cast());
            let v1 = _mm_loadu_si128(p.add(16).cast());
            let v2 = _mm_loadu_si128(p.add(32).cast());
            let v3 = _mm_loadu_si128(p.add(48).cast());
            let any = _mm_or_si128(
                _mm_or_si128(bad(v0), bad(v1)),
                _mm_or_si128(bad(v2), bad(v3)),
            );
            if _mm_movemask_epi8(any) != 0 {
                break;
            }
            let q = d.add(k).cast::<__m128i>();
            if stream {
                _mm_stream_si128(q, v0);
                _mm_stream_si128(q.add(1), v1);
                _mm_stream_si128(q.add(2), v2);
                _mm_stream_si128(q.add(3), v3);
                streamed = true;
            } else {
                _mm_storeu_si128(q, v0);
                _mm_storeu_si128(q.add(1), v1);
                _mm_storeu_si128(q.add(2), v2);
                _mm_storeu_si128(q.add(3), v3);
            }
            k += 64;
        }
        let mut stop = None;
        while k + 16 <= n {
            let v = _mm_loadu_si128(s.add(k).cast());
            let mask = _mm_movemask_epi8(bad(v));
            if mask != 0 {
                stop = Some(k + mask.trailing_zeros() as usize);
                break;
            }
            _mm_storeu_si128(d.add(k).cast(), v);
            k += 16;
        }
        if streamed {
            _mm_sfence();
        }
        let stop = stop
            .unwrap_or_else(|| k + src[k..].iter().position(|&b| !is_plain(b)).unwrap_or(n - k));
        std::ptr::copy_nonoverlapping(s.add(k), d.add(k), stop - k);
        stop
    }
}

/// [`copy_plain`] elsewhere: byte by byte.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn copy_plain(
    src: &[u8],
    dst: &mut [std::mem::MaybeUninit<u8>],
    _stream: bool,
) -> usize {
    assert!(dst.len() >= src.len(), "copy_plain: destination too short");
    let stop = src.iter().position(|&b| !is_plain(b)).unwrap_or(src.len());
    for (out, &b) in dst.iter_mut().zip(&src[..stop]) {
        out.write(b);
    }
    stop
}

/// Whether `b` stands for itself in a JSON string and is ASCII.
#[inline]
fn is_plain(b: u8) -> bool {
    (0x20..0x80).contains(&b) && b != b'"' && b != b'\\'
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::any_of16;

    #[test]
    fn masks_every_target_byte() {
        let block: [u8; 16] = *b"a b\nc\td\re f\n  xy";
        let want = block
            .iter()
            .enumerate()
            .filter(|(_, &b)| matches!(b, b' ' | b'\n' | b'\t' | b'\r'))
            .fold(0u32, |m, (k, _)| m | 1 << k);
        assert_eq!(any_of16(&block, *b" \n\t\r"), want);
        assert_eq!(any_of16(&block, *b"\n\r"), 1 << 3 | 1 << 7 | 1 << 11);
    }

    #[test]
    fn copy_plain_stops_where_plain_text_ends() {
        use super::{copy_plain, is_plain};
        use std::mem::MaybeUninit;
        let text: Vec<u8> = (0..600u32).map(|k| b' ' + (k * 7 % 95) as u8).collect();
        let text: Vec<u8> = text
            .into_iter()
            .map(|b| if is_plain(b) { b } else { b'a' })
            .collect();
        let mut out = vec![MaybeUninit::<u8>::uninit(); 700];
        // every destination alignment, lengths around the 16- and 64-byte steps, a stopping
        // byte of each kind (or none) at places before, inside and after the vector loops
        for shift in 0..17 {
            for len in [0, 1, 15, 16, 17, 63, 64, 65, 130, 300, 600] {
                for stop in [
                    None,
                    Some(0),
                    Some(5),
                    Some(16),
                    Some(64),
                    Some(70),
                    Some(299),
                ] {
                    for bad in [b'"', b'\\', 0x1f, 0x00, 0x7f + 1, 0xff] {
                        let mut src = text[..len].to_vec();
                        if let Some(at) = stop.filter(|&at| at < len) {
                            src[at] = bad;
                        }
                        let want = src.iter().position(|&b| !is_plain(b)).unwrap_or(len);
                        for stream in [false, true] {
                            let got = copy_plain(&src, &mut out[shift..shift + len], stream);
                            assert_eq!(got, want, "shift {shift} len {len} stop {stop:?}");
                            // SAFETY: the first `got` bytes were written
                            let copied: Vec<u8> = out[shift..shift + got]
                                .iter()
                                .map(|b| unsafe { b.assume_init() })
                                .collect();
                            assert_eq!(copied, src[..got]);
                        }
                    }
                }
            }
        }
    }
}
