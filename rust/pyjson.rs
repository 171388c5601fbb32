//! JSON text to Python values, as `json.loads` makes them: dicts, lists, `str`, `int` (big
//! ones too), `float`, `bool` and `None`. One pass over the bytes builds the objects; strings
//! without escapes become `str` straight from the input, and object keys go through a small
//! cache so a repeated key costs no allocation.
//!
//! The input must be UTF-8 (callers check it first), which is why only ASCII bytes are ever
//! looked at here.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::pystr::str_from_utf8;

/// Containers nested deeper than this are refused as invalid JSON.
pub(crate) const MAX_DEPTH: usize = 200;

/// Why a JSON text did not become a Python value.
pub(crate) enum Failure {
    /// Not JSON; the text names the problem and its line and column.
    Json(String),
    /// Python failed to build a value (out of memory and the like).
    Py(PyErr),
}

/// A boxed [`Failure`]: one pointer, so results of the parser's functions stay in registers.
pub(crate) struct ParseFail(pub(crate) Box<Failure>);

impl From<PyErr> for ParseFail {
    fn from(e: PyErr) -> Self {
        Self(Box::new(Failure::Py(e)))
    }
}

const KEY_SLOTS: usize = 512;
const MAX_KEY_LEN: usize = 64;

/// A direct-mapped cache of `str` objects for short object keys (and other short strings that
/// repeat, such as method names).
pub(crate) struct KeyCache {
    slots: Vec<KeySlot>,
}

/// A cached key: its UTF-8 text and its `str`.
type KeySlot = Option<(Box<[u8]>, Py<PyString>)>;

impl Default for KeyCache {
    fn default() -> Self {
        Self {
            slots: (0..KEY_SLOTS).map(|_| None).collect(),
        }
    }
}

/// A word that, together with the length, determines up to eight bytes (overlapping loads
/// rather than a copy into a padded buffer, which compiles to a `memcpy` call).
#[inline]
fn word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    if let Some(first) = bytes.first_chunk::<8>() {
        u64::from_le_bytes(*first)
    } else if n >= 4 {
        let lo = bytes
            .first_chunk::<4>()
            .map_or(0, |b| u32::from_le_bytes(*b));
        let hi = bytes
            .last_chunk::<4>()
            .map_or(0, |b| u32::from_le_bytes(*b));
        u64::from(lo) | u64::from(hi) << 32
    } else if n > 0 {
        u64::from(bytes[0]) | u64::from(bytes[n / 2]) << 8 | u64::from(bytes[n - 1]) << 16
    } else {
        0
    }
}

/// The first and the last eight bytes (overlapping when shorter than 16).
#[inline]
fn ends(bytes: &[u8]) -> (u64, u64) {
    match (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        (Some(first), Some(last)) => (u64::from_le_bytes(*first), u64::from_le_bytes(*last)),
        _ => (word(bytes), 0),
    }
}

/// Equality of two byte strings of the same length: word compares for up to 16 bytes.
#[inline]
fn same_short(a: &[u8], b: &[u8]) -> bool {
    if a.len() <= 16 {
        ends(a) == ends(b)
    } else {
        a == b
    }
}

fn slot_of(s: &[u8]) -> usize {
    // the first and last eight bytes and the length tell keys apart well enough; a collision
    // only costs a new string
    let (head, tail) = ends(s);
    let h = (head ^ tail.rotate_left(29) ^ s.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 40) as usize % KEY_SLOTS
}

impl KeyCache {
    /// The `str` for the UTF-8 text `s`, shared with earlier calls for the same text.
    fn get<'py>(
        &mut self,
        py: Python<'py>,
        s: &[u8],
        ascii: bool,
    ) -> PyResult<Bound<'py, PyString>> {
        if s.len() > MAX_KEY_LEN {
            return str_from_utf8(py, s, ascii);
        }
        let slot = &mut self.slots[slot_of(s)];
        if let Some((text, object)) = slot {
            if text.len() == s.len() && same_short(text, s) {
                return Ok(object.bind(py).clone());
            }
        }
        let object = str_from_utf8(py, s, ascii)?;
        *slot = Some((s.into(), object.clone().unbind()));
        Ok(object)
    }
}

/// Turns JSON into Python values; keeps its key cache and escape buffer between documents.
#[derive(Default)]
pub(crate) struct JsonReader {
    keys: KeyCache,
    scratch: Vec<u8>,
}

impl JsonReader {
    /// Starts parsing `json`, which must be UTF-8.
    pub(crate) fn begin<'r, 'j>(&'r mut self, json: &'j [u8]) -> Doc<'r, 'j> {
        Doc {
            data: json,
            pos: 0,
            text: LastStr::default(),
            keys: &mut self.keys,
            scratch: &mut self.scratch,
        }
    }
}

/// Where the text of the string read last is (kept in the parser rather than returned, so
/// the hot functions return a flag in a register).
#[derive(Debug, Clone, Copy, Default)]
struct LastStr {
    /// `data[start..end]`, unless `decoded`.
    start: usize,
    end: usize,
    ascii: bool,
    /// It had escapes: the text is in the scratch buffer.
    decoded: bool,
    /// The decoded text holds lone surrogates (from `\uXXXX` escapes), encoded as UTF-8
    /// encodes code points.
    surrogates: bool,
}

/// A parse in progress over one document.
pub(crate) struct Doc<'r, 'j> {
    data: &'j [u8],
    pos: usize,
    text: LastStr,
    keys: &'r mut KeyCache,
    scratch: &'r mut Vec<u8>,
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Nonzero when some byte of `w` is below `n` (`n` <= 0x80).
#[inline]
fn has_less(w: u64, n: u8) -> u64 {
    w.wrapping_sub(LO * u64::from(n)) & !w & HI
}

/// Nonzero when some byte of `w` equals `b`.
#[inline]
fn has_byte(w: u64, b: u8) -> u64 {
    has_less(w ^ (LO * u64::from(b)), 1)
}

/// The smallest and largest byte of `bytes` (`(0xFF, 0)` when empty), in lanes the compiler
/// turns into SIMD min/max.
fn min_max(bytes: &[u8]) -> (u8, u8) {
    let mut lo = [0xFFu8; 32];
    let mut hi = [0u8; 32];
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        for ((l, h), &b) in lo.iter_mut().zip(hi.iter_mut()).zip(block) {
            *l = (*l).min(b);
            *h = (*h).max(b);
        }
    }
    for (l, &b) in lo.iter_mut().zip(blocks.remainder()) {
        *l = (*l).min(b);
    }
    for (h, &b) in hi.iter_mut().zip(blocks.remainder()) {
        *h = (*h).max(b);
    }
    (
        lo.iter().copied().min().unwrap_or(0xFF),
        hi.iter().copied().max().unwrap_or(0),
    )
}

fn hex_value(b: u8) -> Option<u32> {
    match b {
        b'0'..=b'9' => Some(u32::from(b - b'0')),
        b'a'..=b'f' => Some(u32::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u32::from(b - b'A' + 10)),
        _ => None,
    }
}

impl<'j> Doc<'_, 'j> {
    /// An "invalid JSON" detail for a problem at byte `at`.
    fn fail(&self, what: &str, at: usize) -> ParseFail {
        let at = at.min(self.data.len());
        let before = &self.data[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        ParseFail(Box::new(Failure::Json(format!(
            "{what} at line {line} column {column}"
        ))))
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.data.get(self.pos) {
            self.pos += 1;
        }
    }

    /// The first byte of the next value, after whitespace.
    pub(crate) fn peek(&mut self) -> Result<u8, ParseFail> {
        self.skip_ws();
        match self.data.get(self.pos) {
            Some(&b) => Ok(b),
            None => Err(self.fail("EOF while parsing a value", self.pos)),
        }
    }

    /// Only whitespace may follow the value.
    pub(crate) fn end(&mut self) -> Result<(), ParseFail> {
        self.skip_ws();
        if self.pos < self.data.len() {
            return Err(self.fail("trailing characters", self.pos));
        }
        Ok(())
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), ParseFail> {
        if self.data[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.fail("expected value", self.pos))
        }
    }

    /// Reads the string whose `"` is at the current position; [`Doc::str_bytes`] and
    /// [`Doc::py_str`] give its text.
    pub(crate) fn string(&mut self) -> Result<(), ParseFail> {
        let data = self.data;
        let start = self.pos + 1;
        let mut i = start;
        let mut non_ascii = 0u64;
        loop {
            let mut words = 0;
            while let Some(chunk) = data.get(i..i + 8) {
                if words == 4 {
                    // a long string: search in blocks instead of word by word
                    i = self.long_run(i, &mut non_ascii);
                    break;
                }
                words += 1;
                let w = word(chunk);
                let special = has_byte(w, b'"') | has_byte(w, b'\\') | has_less(w, 0x20);
                if special != 0 {
                    // the lowest flagged byte is exact (only bytes above it can be false hits)
                    let k = (special.trailing_zeros() / 8) as usize;
                    non_ascii |= w & ((1u64 << (8 * k)) - 1);
                    i += k;
                    break;
                }
                non_ascii |= w;
                i += 8;
            }
            match data.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    self.text = LastStr {
                        start,
                        end: i,
                        ascii: non_ascii & HI == 0,
                        decoded: false,
                        surrogates: false,
                    };
                    return Ok(());
                }
                Some(b'\\') => return self.escaped_string(start, i),
                Some(&b) if b < 0x20 => {
                    return Err(self.fail("control character found while parsing a string", i))
                }
                Some(&b) => {
                    non_ascii |= u64::from(b);
                    i += 1;
                }
                None => return Err(self.fail("EOF while parsing a string", i)),
            }
        }
    }

    /// From `i` inside a string: the index of the next `"`, `\\` or control byte (or the end of
    /// the data), with SIMD searches over blocks that stay in cache; notes non-ASCII bytes.
    fn long_run(&self, mut i: usize, non_ascii: &mut u64) -> usize {
        const BLOCK: usize = 16 * 1024;
        let data = self.data;
        loop {
            let end = (i + BLOCK).min(data.len());
            let block = &data[i..end];
            let stop = memchr::memchr2(b'"', b'\\', block).unwrap_or(block.len());
            let (lo, hi) = min_max(&block[..stop]);
            if lo < 0x20 {
                return i + block[..stop].iter().position(|&b| b < 0x20).unwrap_or(0);
            }
            if hi >= 0x80 {
                *non_ascii |= HI;
            }
            i += stop;
            if stop < block.len() || end == data.len() {
                return i;
            }
        }
    }

    /// The slow path of [`Doc::string`]: the string has escapes, starting at `first_escape`.
    fn escaped_string(&mut self, start: usize, first_escape: usize) -> Result<(), ParseFail> {
        let data = self.data;
        self.scratch.clear();
        self.scratch.extend_from_slice(&data[start..first_escape]);
        let mut surrogates = false;
        let mut i = first_escape;
        loop {
            match data.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    self.text = LastStr {
                        start,
                        end: i,
                        ascii: false,
                        decoded: true,
                        surrogates,
                    };
                    return Ok(());
                }
                Some(b'\\') => {
                    let simple = match data.get(i + 1) {
                        Some(b'"') => b'"',
                        Some(b'\\') => b'\\',
                        Some(b'/') => b'/',
                        Some(b'b') => 0x08,
                        Some(b'f') => 0x0C,
                        Some(b'n') => b'\n',
                        Some(b'r') => b'\r',
                        Some(b't') => b'\t',
                        Some(b'u') => 0,
                        Some(_) => return Err(self.fail("invalid escape", i + 1)),
                        None => return Err(self.fail("EOF while parsing a string", i + 1)),
                    };
                    if simple != 0 {
                        self.scratch.push(simple);
                        i += 2;
                        continue;
                    }
                    let unit = self.hex4(i + 2)?;
                    i += 6;
                    let mut code = unit;
                    if (0xD800..0xDC00).contains(&unit) && data.get(i..i + 2) == Some(b"\\u") {
                        let low = self.hex4(i + 2)?;
                        if (0xDC00..0xE000).contains(&low) {
                            code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                            i += 6;
                        }
                    }
                    match char::from_u32(code) {
                        Some(c) => {
                            let mut buf = [0u8; 4];
                            self.scratch
                                .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                        }
                        None => {
                            // a lone surrogate, as json.loads keeps it
                            surrogates = true;
                            self.scratch.extend_from_slice(&[
                                0xE0 | (code >> 12) as u8,
                                0x80 | ((code >> 6) & 0x3F) as u8,
                                0x80 | (code & 0x3F) as u8,
                            ]);
                        }
                    }
                }
                Some(&b) if b < 0x20 => {
                    return Err(self.fail("control character found while parsing a string", i))
                }
                Some(&b) => {
                    self.scratch.push(b);
                    i += 1;
                }
                None => return Err(self.fail("EOF while parsing a string", i)),
            }
        }
    }

    fn hex4(&self, at: usize) -> Result<u32, ParseFail> {
        let digits = self
            .data
            .get(at..at + 4)
            .ok_or_else(|| self.fail("EOF while parsing a string", self.data.len()))?;
        digits.iter().try_fold(0u32, |acc, &b| {
            hex_value(b)
                .map(|v| acc << 4 | v)
                .ok_or_else(|| self.fail("invalid \\u escape", at))
        })
    }

    /// The text of the string read last (UTF-8, or with encoded surrogates).
    pub(crate) fn str_bytes(&self) -> &[u8] {
        if self.text.decoded {
            self.scratch
        } else {
            &self.data[self.text.start..self.text.end]
        }
    }

    /// The `str` of the string read last; through the key cache when `cached`.
    pub(crate) fn py_str<'py>(
        &mut self,
        py: Python<'py>,
        cached: bool,
    ) -> PyResult<Bound<'py, PyString>> {
        let text = self.text;
        if !text.decoded {
            let bytes = &self.data[text.start..text.end];
            return if cached {
                self.keys.get(py, bytes, text.ascii)
            } else {
                str_from_utf8(py, bytes, text.ascii)
            };
        }
        if !text.surrogates {
            return PyString::from_bytes(py, self.scratch);
        }
        PyBytes::new(py, self.scratch)
            .call_method1(pyo3::intern!(py, "decode"), ("utf-8", "surrogatepass"))?
            .cast_into::<PyString>()
            .map_err(PyErr::from)
    }

    /// Scans the number at the current position: its bytes, and whether it is a float.
    fn scan_number(&mut self) -> Result<(&'j [u8], bool), ParseFail> {
        let data = self.data;
        let start = self.pos;
        let mut i = start;
        if data.get(i) == Some(&b'-') {
            i += 1;
        }
        let digits = |mut i: usize| {
            while let Some(b'0'..=b'9') = data.get(i) {
                i += 1;
            }
            i
        };
        match data.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digits(i + 1),
            _ => return Err(self.fail("expected value", start)),
        }
        let mut float = false;
        if data.get(i) == Some(&b'.') {
            let end = digits(i + 1);
            if end == i + 1 {
                return Err(self.fail("invalid number", end));
            }
            i = end;
            float = true;
        }
        if let Some(b'e' | b'E') = data.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = data.get(i) {
                i += 1;
            }
            let end = digits(i);
            if end == i {
                return Err(self.fail("invalid number", end));
            }
            i = end;
            float = true;
        }
        self.pos = i;
        Ok((&data[start..i], float))
    }

    fn number<'py>(&mut self, py: Python<'py>) -> Result<Bound<'py, PyAny>, ParseFail> {
        let start = self.pos;
        let (text, float) = self.scan_number()?;
        if !float && text.len() <= 18 {
            // at most 18 characters: the value fits an i64 whatever they are
            let (negative, digits) = match text.split_first() {
                Some((b'-', digits)) => (true, digits),
                _ => (false, text),
            };
            let magnitude = digits
                .iter()
                .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
            let Ok(int) = (if negative { -magnitude } else { magnitude }).into_pyobject(py);
            return Ok(int.into_any());
        }
        self.number_value(py, start, text, float)
    }

    fn number_value<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        text: &[u8],
        float: bool,
    ) -> Result<Bound<'py, PyAny>, ParseFail> {
        // the number's bytes are ASCII digits, signs, dots and exponents
        let text_str = std::str::from_utf8(text).unwrap_or_default();
        if float {
            return match text_str.parse::<f64>() {
                Ok(x) => Ok(PyFloat::new(py, x).into_any()),
                Err(_) => Err(self.fail("invalid number", start)),
            };
        }
        if text.len() <= 18 {
            if let Ok(n) = text_str.parse::<i64>() {
                let Ok(int) = n.into_pyobject(py);
                return Ok(int.into_any());
            }
        }
        match py.get_type::<PyInt>().call1((text_str,)) {
            Ok(int) => Ok(int),
            // past the interpreter's limit on digits for int()
            Err(_) => Err(self.fail("number out of range", start)),
        }
    }

    fn check_depth(&self, depth: usize) -> Result<(), ParseFail> {
        if depth > MAX_DEPTH {
            return Err(self.fail("recursion limit exceeded", self.pos));
        }
        Ok(())
    }

    /// The value starting with `first` (from [`Doc::peek`]) as a Python object; `depth`
    /// counts the containers around it.
    pub(crate) fn value<'py>(
        &mut self,
        py: Python<'py>,
        first: u8,
        depth: usize,
    ) -> Result<Bound<'py, PyAny>, ParseFail> {
        match first {
            b'"' => {
                self.string()?;
                Ok(self.py_str(py, false)?.into_any())
            }
            b'{' => self.object(py, depth + 1),
            b'[' => self.array(py, depth + 1),
            b't' => {
                self.literal(b"true")?;
                Ok(PyBool::new(py, true).to_owned().into_any())
            }
            b'f' => {
                self.literal(b"false")?;
                Ok(PyBool::new(py, false).to_owned().into_any())
            }
            b'n' => {
                self.literal(b"null")?;
                Ok(py.None().into_bound(py))
            }
            _ => self.number(py),
        }
    }

    /// Checks the value starting with `first` without building it (long integers excepted:
    /// whether `int()` takes them depends on the interpreter's digit limit).
    pub(crate) fn skip(
        &mut self,
        py: Python<'_>,
        first: u8,
        depth: usize,
    ) -> Result<(), ParseFail> {
        match first {
            b'"' => self.string(),
            b'{' => {
                self.check_depth(depth + 1)?;
                let mut more = self.first_key()?;
                while more {
                    let first = self.peek()?;
                    self.skip(py, first, depth + 1)?;
                    more = self.next_key()?;
                }
                Ok(())
            }
            b'[' => {
                self.check_depth(depth + 1)?;
                let mut next = self.first_item()?;
                while let Some(first) = next {
                    self.skip(py, first, depth + 1)?;
                    next = self.next_item()?;
                }
                Ok(())
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => {
                let start = self.pos;
                let (text, float) = self.scan_number()?;
                if !float && text.len() > 18 {
                    self.number_value(py, start, text, float)?;
                }
                Ok(())
            }
        }
    }

    fn array<'py>(
        &mut self,
        py: Python<'py>,
        depth: usize,
    ) -> Result<Bound<'py, PyAny>, ParseFail> {
        self.check_depth(depth)?;
        let mut items = Vec::new();
        let mut next = self.first_item()?;
        while let Some(first) = next {
            items.push(self.value(py, first, depth)?);
            next = self.next_item()?;
        }
        Ok(PyList::new(py, items)?.into_any())
    }

    fn object<'py>(
        &mut self,
        py: Python<'py>,
        depth: usize,
    ) -> Result<Bound<'py, PyAny>, ParseFail> {
        self.check_depth(depth)?;
        let dict = PyDict::new(py);
        let mut more = self.first_key()?;
        while more {
            let k = self.py_str(py, true)?;
            let first = self.peek()?;
            let v = self.value(py, first, depth)?;
            dict.set_item(k, v)?;
            more = self.next_key()?;
        }
        Ok(dict.into_any())
    }

    /// At `[`: the first byte of the first item, `None` for `[]`.
    pub(crate) fn first_item(&mut self) -> Result<Option<u8>, ParseFail> {
        self.pos += 1;
        let first = self.peek()?;
        if first == b']' {
            self.pos += 1;
            return Ok(None);
        }
        Ok(Some(first))
    }

    /// After an item: the first byte of the next one, `None` at `]`.
    pub(crate) fn next_item(&mut self) -> Result<Option<u8>, ParseFail> {
        self.skip_ws();
        match self.data.get(self.pos) {
            Some(b',') => {
                self.pos += 1;
                let first = self.peek()?;
                if first == b']' {
                    return Err(self.fail("trailing comma", self.pos));
                }
                Ok(Some(first))
            }
            Some(b']') => {
                self.pos += 1;
                Ok(None)
            }
            Some(_) => Err(self.fail("expected `,` or `]`", self.pos)),
            None => Err(self.fail("EOF while parsing a list", self.pos)),
        }
    }

    /// At `{`: reads the first key (and its `:`), `false` for `{}`.
    pub(crate) fn first_key(&mut self) -> Result<bool, ParseFail> {
        self.pos += 1;
        self.skip_ws();
        match self.data.get(self.pos) {
            Some(b'}') => {
                self.pos += 1;
                Ok(false)
            }
            Some(b'"') => self.key(),
            Some(_) => Err(self.fail("key must be a string", self.pos)),
            None => Err(self.fail("EOF while parsing an object", self.pos)),
        }
    }

    /// After a member's value: reads the next key (and its `:`), `false` at `}`.
    pub(crate) fn next_key(&mut self) -> Result<bool, ParseFail> {
        self.skip_ws();
        match self.data.get(self.pos) {
            Some(b',') => {
                self.pos += 1;
                self.skip_ws();
                match self.data.get(self.pos) {
                    Some(b'"') => self.key(),
                    Some(b'}') => Err(self.fail("trailing comma", self.pos)),
                    Some(_) => Err(self.fail("key must be a string", self.pos)),
                    None => Err(self.fail("EOF while parsing an object", self.pos)),
                }
            }
            Some(b'}') => {
                self.pos += 1;
                Ok(false)
            }
            Some(_) => Err(self.fail("expected `,` or `}`", self.pos)),
            None => Err(self.fail("EOF while parsing an object", self.pos)),
        }
    }

    fn key(&mut self) -> Result<bool, ParseFail> {
        self.string()?;
        self.skip_ws();
        match self.data.get(self.pos) {
            Some(b':') => {
                self.pos += 1;
                Ok(true)
            }
            Some(_) => Err(self.fail("expected `:`", self.pos)),
            None => Err(self.fail("EOF while parsing an object", self.pos)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One JSON value through the reader, or the "invalid JSON" detail.
    fn parse<'py>(py: Python<'py>, text: &str) -> Result<Bound<'py, PyAny>, String> {
        let mut reader = JsonReader::default();
        let mut doc = reader.begin(text.as_bytes());
        let value = doc.peek().and_then(|first| doc.value(py, first, 0));
        let value = value.and_then(|v| doc.end().map(|()| v));
        value.map_err(|ParseFail(fail)| match *fail {
            Failure::Json(detail) => detail,
            Failure::Py(e) => format!("python error {e}"),
        })
    }

    #[test]
    fn values_are_what_json_loads_makes() {
        Python::initialize();
        Python::attach(|py| {
            let loads = py.import("json").unwrap().getattr("loads").unwrap();
            for text in [
                r#"{"a": [1, -0, -0.0, 2.5e-3, 1E2, 1e400, 12345678901234567890, -9223372036854775808]}"#,
                r#" [true, false, null, "", "é😀", "a\"b\\c\/d\b\f\n\r\t", "\u00e9\ud83d\ude00"] "#,
                r#"{"dup": 1, "dup": 2, "k": {"k": {"k": []}}}"#,
                r#""\ud800 \udc00 \ud800\u0041 \ud83d\ud83d\ude00""#,
                "\"a long string that goes on well past the thirty-two bytes of the short scan\"",
                "\"\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}\"",
            ] {
                let ours = parse(py, text).unwrap();
                let theirs = loads.call1((text,)).unwrap();
                assert_eq!(
                    ours.repr().unwrap().to_string(),
                    theirs.repr().unwrap().to_string(),
                    "{text}"
                );
            }
        });
    }

    #[test]
    fn invalid_json_names_problem_and_position() {
        Python::initialize();
        Python::attach(|py| {
            let cases = [
                ("", "EOF while parsing a value at line 1 column 1"),
                ("[1,]", "trailing comma at line 1 column 4"),
                ("{\"a\":1,}", "trailing comma at line 1 column 8"),
                ("{\"a\" 1}", "expected `:` at line 1 column 6"),
                ("[1 2]", "expected `,` or `]` at line 1 column 4"),
                ("{1:2}", "key must be a string at line 1 column 2"),
                ("[01]", "expected `,` or `]` at line 1 column 3"),
                ("[1.]", "invalid number at line 1 column 4"),
                ("NaN", "expected value at line 1 column 1"),
                ("-Infinity", "expected value at line 1 column 1"),
                ("\"\\x\"", "invalid escape at line 1 column 3"),
                ("\"\\u12g4\"", "invalid \\u escape at line 1 column 4"),
                (
                    "\"a\u{1}\"",
                    "control character found while parsing a string at line 1 column 3",
                ),
                ("\"abc", "EOF while parsing a string at line 1 column 5"),
                ("{}\n x", "trailing characters at line 2 column 2"),
            ];
            for (text, detail) in cases {
                assert_eq!(parse(py, text).unwrap_err(), detail, "{text:?}");
            }
        });
    }

    #[test]
    fn nesting_limit() {
        Python::initialize();
        Python::attach(|py| {
            let deep = |n: usize| "[".repeat(n) + &"]".repeat(n);
            assert!(parse(py, &deep(MAX_DEPTH)).is_ok());
            let err = parse(py, &deep(MAX_DEPTH + 1)).unwrap_err();
            assert!(err.starts_with("recursion limit exceeded"), "{err}");
        });
    }

    #[test]
    fn keys_are_shared() {
        Python::initialize();
        Python::attach(|py| {
            let mut reader = JsonReader::default();
            let a = reader.keys.get(py, b"method", true).unwrap();
            let b = reader.keys.get(py, b"method", true).unwrap();
            assert!(a.is(&b));
            let c = reader.keys.get(py, b"methods", true).unwrap();
            assert_eq!(c.to_str().unwrap(), "methods");
            let long = [b'k'; 100];
            let d = reader.keys.get(py, &long, true).unwrap();
            assert_eq!(d.to_str().unwrap().len(), 100);
        });
    }
}
