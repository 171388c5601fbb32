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
}
