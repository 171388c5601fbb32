//! Splitting a fuzz input into a configuration byte, cut positions and the data itself.

/// The input as `(config, chunks, data)`: byte 0 is the configuration, byte 1 the number of
/// cuts (mod 8), then two bytes per cut (a position, mod the data length + 1); the rest is the
/// data, cut at those positions (sorted; equal ones make empty chunks).
pub fn split(input: &[u8]) -> (u8, Vec<&[u8]>, &[u8]) {
    let config = input.first().copied().unwrap_or(0);
    let cuts = usize::from(input.get(1).copied().unwrap_or(0) % 8);
    let header = (2 + 2 * cuts).min(input.len());
    let data = &input[header..];
    let mut points: Vec<usize> = input[2.min(input.len())..header]
        .chunks(2)
        .map(|pair| {
            let n = usize::from(pair[0]) | usize::from(*pair.get(1).unwrap_or(&0)) << 8;
            n % (data.len() + 1)
        })
        .collect();
    points.sort_unstable();
    let mut chunks = Vec::with_capacity(points.len() + 1);
    let mut start = 0;
    for point in points {
        chunks.push(&data[start..point]);
        start = point;
    }
    chunks.push(&data[start..]);
    (config, chunks, data)
}
