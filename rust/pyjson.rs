//! JSON text to Python values, as `json.loads` makes them: dicts, lists, `str`, `int` (big
//! ones too), `float`, `bool` and `None`, built in one pass over [`crate::json_scan`]'s tokens.
//! Strings without escapes become `str` straight from the input, and object keys go through a
//! small cache so a repeated key costs no allocation.

use std::mem::MaybeUninit;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::json_scan::{ends, PlainStop, Scanner, SyntaxError};
use crate::prefault::Ahead;
use crate::pystr::str_from_utf8;
use crate::pystrview::{LoneSurrogate, StrSource};

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

impl From<SyntaxError> for ParseFail {
    fn from(e: SyntaxError) -> Self {
        Self(Box::new(Failure::Json(e.to_string())))
    }
}

/// A Python value built from JSON, or why none was.
type Parsed<'py> = Result<Bound<'py, PyAny>, ParseFail>;

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
    /// The narrow copy of a `str` being parsed (see [`crate::pystrview`]).
    narrow: Vec<u8>,
    /// Code points of an escaped string of such a `str`.
    units: Vec<u32>,
}

/// Strings at least this long (without a `"` in this many bytes) are read straight into their
/// `str` when they are ASCII text ([`Doc::long_ascii_str`]).
const LONG_STRING: usize = 256 * 1024;
/// Long strings of at least this many bytes are written around the cache (non-temporal
/// stores): more than half of a core's L2 here, they would not stay in it anyway.
const STREAM_STRING: usize = 1024 * 1024;

/// Buffers kept between documents up to this size (larger ones are given back).
const KEEP_BYTES: usize = 4 << 20;

impl JsonReader {
    /// Starts parsing `json`, which must be UTF-8.
    pub(crate) fn begin<'r, 'j>(&'r mut self, json: &'j [u8]) -> Doc<'r, 'j> {
        self.begin_bytes(json, false)
    }

    /// [`JsonReader::begin`] for bytes not checked to be UTF-8 before: each string with a byte
    /// past ASCII is checked as it is read ([`Scanner::checking_utf8`]).
    pub(crate) fn begin_unchecked<'r, 'j>(&'r mut self, json: &'j [u8]) -> Doc<'r, 'j> {
        self.begin_bytes(json, true)
    }

    fn begin_bytes<'r, 'j>(&'r mut self, json: &'j [u8], check_utf8: bool) -> Doc<'r, 'j> {
        let scan = Scanner::new(json, &mut self.scratch);
        Doc {
            scan: if check_utf8 {
                scan.checking_utf8()
            } else {
                scan
            },
            keys: &mut self.keys,
            source: None,
            units: &mut self.units,
        }
    }

    /// Starts parsing the non-ASCII `str` of `source`, read where it lies.
    pub(crate) fn begin_str<'r>(
        &'r mut self,
        source: StrSource<'r>,
    ) -> Result<Doc<'r, 'r>, LoneSurrogate> {
        source.narrow(&mut self.narrow)?;
        Ok(Doc {
            scan: Scanner::new(&self.narrow, &mut self.scratch),
            keys: &mut self.keys,
            source: Some(source),
            units: &mut self.units,
        })
    }

    /// Gives back buffers a very large document grew.
    pub(crate) fn trim(&mut self) {
        if self.scratch.capacity() > KEEP_BYTES {
            self.scratch = Vec::new();
        }
        if self.narrow.capacity() > KEEP_BYTES {
            self.narrow = Vec::new();
        }
        if self.units.capacity() > KEEP_BYTES / 4 {
            self.units = Vec::new();
        }
    }
}

/// A parse in progress over one document.
pub(crate) struct Doc<'r, 'j> {
    scan: Scanner<'r, 'j>,
    keys: &'r mut KeyCache,
    /// The `str` whose narrow copy is being scanned, if that is the input.
    source: Option<StrSource<'j>>,
    units: &'r mut Vec<u32>,
}

impl<'j> Doc<'_, 'j> {
    /// The first byte of the next value, after whitespace.
    #[inline]
    pub(crate) fn peek(&mut self) -> Result<u8, ParseFail> {
        Ok(self.scan.peek()?)
    }

    /// Only whitespace may follow the value.
    pub(crate) fn end(&mut self) -> Result<(), ParseFail> {
        Ok(self.scan.end()?)
    }

    /// Reads the string whose `"` is next; [`Doc::str_bytes`] and [`Doc::py_str`] give it.
    #[inline]
    pub(crate) fn string(&mut self) -> Result<(), ParseFail> {
        Ok(self.scan.string()?)
    }

    /// The text of the string read last (UTF-8, or with encoded surrogates).
    #[inline]
    pub(crate) fn str_bytes(&self) -> &[u8] {
        self.scan.str_bytes()
    }

    /// At `{`: reads the first key (and its `:`), `false` for `{}`.
    #[inline]
    pub(crate) fn first_key(&mut self) -> Result<bool, ParseFail> {
        Ok(self.scan.first_key()?)
    }

    /// After a member's value: reads the next key (and its `:`), `false` at `}`.
    #[inline]
    pub(crate) fn next_key(&mut self) -> Result<bool, ParseFail> {
        Ok(self.scan.next_key()?)
    }

    /// At `[`: the first byte of the first item, `None` for `[]`.
    #[inline]
    pub(crate) fn first_item(&mut self) -> Result<Option<u8>, ParseFail> {
        Ok(self.scan.first_item()?)
    }

    /// After an item: the first byte of the next one, `None` at `]`.
    #[inline]
    pub(crate) fn next_item(&mut self) -> Result<Option<u8>, ParseFail> {
        Ok(self.scan.next_item()?)
    }

    /// The `str` of the string read last; through the key cache when `cached`. Out of line so
    /// that the frames of the recursion through [`Doc::value`] stay small (see `MAX_DEPTH`).
    #[inline(never)]
    pub(crate) fn py_str<'py>(
        &mut self,
        py: Python<'py>,
        cached: bool,
    ) -> PyResult<Bound<'py, PyString>> {
        let text = self.scan.text();
        if let Some(source) = self.source {
            // the narrow copy is the text only where it is ASCII (and escapes are ASCII)
            if !text.decoded && !text.ascii {
                return source.substring(py, text.start, text.end);
            }
            if text.decoded && self.scan.scratch().contains(&0xFF) {
                return source.unescaped(py, text.start, text.end, self.units);
            }
        }
        if !text.decoded {
            let bytes = &self.scan.data()[text.start..text.end];
            return if cached {
                self.keys.get(py, bytes, text.ascii)
            } else {
                str_from_utf8(py, bytes, text.ascii)
            };
        }
        if !text.surrogates {
            return PyString::from_bytes(py, self.scan.scratch());
        }
        PyBytes::new(py, self.scan.scratch())
            .call_method1(pyo3::intern!(py, "decode"), ("utf-8", "surrogatepass"))?
            .cast_into::<PyString>()
            .map_err(PyErr::from)
    }

    /// The string whose `"` is next, when it is long and ASCII text (escapes of ASCII
    /// characters allowed), read straight into its `str`: each block of it searched and copied
    /// while in cache, into a `str` as large as the rest of the data, shrunk to the string at its
    /// end. None when it is not such a string (nothing is read then: the usual path reads it).
    /// Bytes input only (a `str` input is parsed where it lies).
    #[inline(never)]
    fn long_ascii_str<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyString>>> {
        let data = self.scan.data();
        let start = self.scan.position() + 1;
        let room = data.len().saturating_sub(start);
        if self.source.is_some()
            || room < LONG_STRING
            || memchr::memchr(b'"', &data[start..start + LONG_STRING]).is_some()
        {
            return Ok(None);
        }
        let size = ffi::Py_ssize_t::try_from(room)
            .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("string too long"))?;
        // SAFETY: a new reference or null with an exception set. Its data (room bytes, one per
        // code point) is written before it is read: only the `written` bytes are kept.
        let object = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyUnicode_New(size, 0x7F))? };
        // SAFETY: the data of a fresh compact ASCII `str` of `room` code points, not shared
        let out = unsafe {
            std::slice::from_raw_parts_mut(
                ffi::PyUnicode_DATA(object.as_ptr()).cast::<MaybeUninit<u8>>(),
                room,
            )
        };
        let mut ahead = Ahead::default();
        let stream = room >= STREAM_STRING;
        let (mut i, mut written) = (start, 0);
        loop {
            ahead.filled(out.as_ptr().cast::<u8>(), written, room);
            let (copied, stop) = self.scan.copy_plain_ascii(i, &mut out[written..], stream);
            i += copied;
            written += copied;
            match stop {
                None => {}
                Some(PlainStop::Quote) => break,
                Some(PlainStop::Escape) => match self.scan.ascii_escape(i) {
                    Some((byte, length)) => {
                        out[written].write(byte);
                        written += 1;
                        i += length;
                    }
                    None => return Ok(None),
                },
                Some(PlainStop::Other) => return Ok(None),
            }
        }
        let mut ptr = object.into_ptr();
        let length = ffi::Py_ssize_t::try_from(written).unwrap_or(size);
        // SAFETY: `ptr` is the only reference to a fresh `str` whose first `written` code points
        // are written; shrinking it keeps them. On failure it is left as it was, and released.
        unsafe {
            if ffi::PyUnicode_Resize(&mut ptr, length) != 0 {
                ffi::Py_DECREF(ptr);
                return Err(PyErr::fetch(py));
            }
            self.scan.skip_to(i + 1);
            Ok(Some(Bound::from_owned_ptr(py, ptr).cast_into_unchecked()))
        }
    }

    fn number<'py>(&mut self, py: Python<'py>) -> Parsed<'py> {
        let start = self.scan.position();
        let (text, float) = self.scan.scan_number()?;
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
    ) -> Parsed<'py> {
        // the number's bytes are ASCII digits, signs, dots and exponents
        let text_str = std::str::from_utf8(text).unwrap_or_default();
        if float {
            return match text_str.parse::<f64>() {
                Ok(x) => Ok(PyFloat::new(py, x).into_any()),
                Err(_) => Err(self.scan.fail("invalid number", start).into()),
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
            Err(_) => Err(self.scan.fail("number out of range", start).into()),
        }
    }

    /// The value starting with `first` (from [`Doc::peek`]) as a Python object; `depth`
    /// counts the containers around it.
    pub(crate) fn value<'py>(&mut self, py: Python<'py>, first: u8, depth: usize) -> Parsed<'py> {
        match first {
            b'{' => self.object(py, depth + 1),
            b'[' => self.array(py, depth + 1),
            _ => self.scalar(py, first),
        }
    }

    /// A value that is not a container. Kept out of line so that the frames of the recursion
    /// through [`Doc::value`] stay small (see `MAX_DEPTH`).
    #[inline(never)]
    fn scalar<'py>(&mut self, py: Python<'py>, first: u8) -> Parsed<'py> {
        match first {
            b'"' => {
                if let Some(long) = self.long_ascii_str(py)? {
                    return Ok(long.into_any());
                }
                self.scan.string()?;
                Ok(self.py_str(py, false)?.into_any())
            }
            b't' => {
                self.scan.literal(b"true")?;
                Ok(PyBool::new(py, true).to_owned().into_any())
            }
            b'f' => {
                self.scan.literal(b"false")?;
                Ok(PyBool::new(py, false).to_owned().into_any())
            }
            b'n' => {
                self.scan.literal(b"null")?;
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
            b'{' => {
                self.scan.check_depth(depth + 1)?;
                let mut more = self.first_key()?;
                while more {
                    let first = self.peek()?;
                    self.skip(py, first, depth + 1)?;
                    more = self.next_key()?;
                }
                Ok(())
            }
            b'[' => {
                self.scan.check_depth(depth + 1)?;
                let mut next = self.first_item()?;
                while let Some(first) = next {
                    self.skip(py, first, depth + 1)?;
                    next = self.next_item()?;
                }
                Ok(())
            }
            _ => self.skip_scalar(py, first),
        }
    }

    /// [`Doc::skip`] for a value that is not a container, out of line as [`Doc::scalar`] is.
    #[inline(never)]
    fn skip_scalar(&mut self, py: Python<'_>, first: u8) -> Result<(), ParseFail> {
        match first {
            b'"' => Ok(self.scan.string()?),
            b't' => Ok(self.scan.literal(b"true")?),
            b'f' => Ok(self.scan.literal(b"false")?),
            b'n' => Ok(self.scan.literal(b"null")?),
            _ => {
                let start = self.scan.position();
                let (text, float) = self.scan.scan_number()?;
                if !float && text.len() > 18 {
                    self.number_value(py, start, text, float)?;
                }
                Ok(())
            }
        }
    }

    fn array<'py>(&mut self, py: Python<'py>, depth: usize) -> Parsed<'py> {
        self.scan.check_depth(depth)?;
        let mut items = Vec::new();
        let mut next = self.first_item()?;
        while let Some(first) = next {
            items.push(self.value(py, first, depth)?);
            next = self.next_item()?;
        }
        Ok(PyList::new(py, items)?.into_any())
    }

    fn object<'py>(&mut self, py: Python<'py>, depth: usize) -> Parsed<'py> {
        self.scan.check_depth(depth)?;
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_scan::MAX_DEPTH;

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
    fn long_strings_are_what_json_loads_makes() {
        Python::initialize();
        Python::attach(|py| {
            let loads = py.import("json").unwrap().getattr("loads").unwrap();
            let long = "lorem ipsum ".repeat(40_000); // past LONG_STRING
            let texts = [
                // read straight into its str: plain, with ASCII escapes (\u0041 too), followed
                // by more values, at the very end of the data, in an object
                format!("[\"{long}\", 1]"),
                format!("[\"{long}\\n\\\"x\\/\\u0041\\u001f{long}\", \"after\"]"),
                format!("\"{long}\""),
                format!("{{\"text\": \"{long}\", \"n\": [true]}}"),
                // past STREAM_STRING: written around the cache
                format!("[\"{}\", 2]", long.repeat(3)),
                format!("[\"{0}\\t{0}\"]", long.repeat(3)),
                // handed to the usual path: non-ASCII early and late, an escape past ASCII, a
                // quote within the first block
                format!("[\"\u{e9}{long}\"]"),
                format!("[\"{long}\u{1f600}\"]"),
                format!("[\"{}\u{e9}\"]", long.repeat(3)),
                format!("[\"{long}\\u00e9\"]"),
                format!("[\"ab\\\"cd{long}\"]"),
            ];
            for text in &texts {
                let ours = parse(py, text).unwrap();
                let theirs = loads.call1((text,)).unwrap();
                assert!(ours.eq(&theirs).unwrap(), "{}", &text[..40]);
            }
            for (text, detail) in [
                (format!("[\"{long}\u{1}\"]"), "control character"),
                (format!("[\"{long}"), "EOF while parsing a string"),
                (format!("[\"{long}\\q\"]"), "invalid escape"),
            ] {
                let err = parse(py, &text).unwrap_err().to_string();
                assert!(err.contains(detail), "{err}");
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
            assert!(
                err.starts_with("nesting deeper than 100 levels at line 1 column 101"),
                "{err}"
            );
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
