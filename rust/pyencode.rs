//! `encode_jsonrpc_message`: Python values to compact JSON text, byte for byte what
//! `json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)` gives.

use std::cell::RefCell;
use std::io::Write as _;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::json_text::write_str;
use crate::pymessages::{JsonRpcNotification, JsonRpcRequest, JsonRpcResponse};

// Nesting deeper than MAX_DEPTH is refused (it is also how a circular structure ends).
use crate::json_scan::MAX_DEPTH;

thread_local! {
    /// The output buffer, reused across calls on a thread.
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn too_deep() -> PyErr {
    PyValueError::new_err("cannot encode: circular reference or nesting too deep")
}

fn not_finite() -> PyErr {
    PyValueError::new_err("cannot encode NaN or Infinity as JSON")
}

fn unsupported(value: &Bound<'_, PyAny>) -> PyErr {
    match value.get_type().name() {
        Ok(name) => PyTypeError::new_err(format!("cannot encode object of type {name} as JSON")),
        Err(e) => e,
    }
}

/// An iterator over a dict subclass's `items()`. This and [`next_item`] are kept out of line
/// so that the frames of the recursion through [`Encoder::value`] stay small (see `MAX_DEPTH`).
#[inline(never)]
fn dict_items<'py>(dict: &Bound<'py, PyDict>) -> PyResult<Bound<'py, pyo3::types::PyIterator>> {
    dict.call_method0(pyo3::intern!(dict.py(), "items"))?
        .try_iter()
}

/// The next (key, value) pair of [`dict_items`], `None` at the end.
#[inline(never)]
fn next_item<'py>(
    items: &mut Bound<'py, pyo3::types::PyIterator>,
) -> PyResult<Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)>> {
    items.next().map(|item| item?.extract()).transpose()
}

struct Encoder {
    out: Vec<u8>,
    /// A string held a lone surrogate, written in its "surrogatepass" UTF-8 form.
    surrogates: bool,
}

impl Encoder {
    fn string(&mut self, value: &Bound<'_, PyString>) -> PyResult<()> {
        if let Ok(text) = value.to_str() {
            write_str(&mut self.out, text.as_bytes());
            return Ok(());
        }
        // Lone surrogates: json.dumps copies them into its output as they are.
        let bytes = value.call_method1(
            pyo3::intern!(value.py(), "encode"),
            ("utf-8", "surrogatepass"),
        )?;
        write_str(&mut self.out, bytes.cast::<PyBytes>()?.as_bytes());
        self.surrogates = true;
        Ok(())
    }

    fn int(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut overflow = 0;
        // SAFETY: `value` is a live int (or int subclass) and we are attached to the
        // interpreter; the call only reads it.
        let n = unsafe { ffi::PyLong_AsLongLongAndOverflow(value.as_ptr(), &mut overflow) };
        if overflow == 0 {
            if n == -1 {
                if let Some(e) = PyErr::take(value.py()) {
                    return Err(e);
                }
            }
            let _ = write!(self.out, "{n}");
            return Ok(());
        }
        // Big ints as `int.__repr__` writes them (an int subclass's own repr is not used).
        let text = value
            .py()
            .get_type::<PyInt>()
            .call_method1(pyo3::intern!(value.py(), "__repr__"), (value,))?;
        self.out
            .extend_from_slice(text.cast::<PyString>()?.to_str()?.as_bytes());
        Ok(())
    }

    fn float(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let x: f64 = value.extract()?;
        if !x.is_finite() {
            return Err(not_finite());
        }
        // Python's own shortest repr (what `float.__repr__` calls): on a tie between two
        // shortest digit strings it picks the even one, where Rust's formatting rounds up.
        // SAFETY: plain C call on a finite double; it returns a NUL-terminated buffer from
        // PyMem_Malloc (freed below) or null with an exception set.
        unsafe {
            let text = ffi::PyOS_double_to_string(
                x,
                b'r' as std::ffi::c_char,
                0,
                ffi::Py_DTSF_ADD_DOT_0,
                std::ptr::null_mut(),
            );
            if text.is_null() {
                return Err(PyErr::fetch(value.py()));
            }
            self.out
                .extend_from_slice(std::ffi::CStr::from_ptr(text).to_bytes());
            ffi::PyMem_Free(text.cast());
        }
        Ok(())
    }

    #[inline(never)]
    fn key(&mut self, key: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(s) = key.cast::<PyString>() {
            return self.string(s);
        }
        let start = self.out.len();
        self.out.push(b'"');
        if key.is_instance_of::<PyFloat>() {
            self.float(key)?;
        } else if key.is_instance_of::<PyBool>() {
            let t = key.is_truthy()?;
            self.out
                .extend_from_slice(if t { b"true" } else { b"false" });
        } else if key.is_none() {
            self.out.extend_from_slice(b"null");
        } else if key.is_instance_of::<PyInt>() {
            self.int(key)?;
        } else {
            self.out.truncate(start);
            return Err(unsupported(key));
        }
        self.out.push(b'"');
        Ok(())
    }

    /// A JSON-RPC message object: `"jsonrpc":"2.0"`, the `members` in order, then `"params"`
    /// when `params` is given and is not None.
    fn message(
        &mut self,
        py: Python<'_>,
        members: &[(&str, &Py<PyAny>)],
        params: Option<&Py<PyAny>>,
        depth: usize,
    ) -> PyResult<()> {
        let params = params.filter(|p| !p.is_none(py)).map(|p| ("params", p));
        self.out.extend_from_slice(br#"{"jsonrpc":"2.0""#);
        for &(name, value) in members.iter().chain(params.as_ref()) {
            self.out.push(b',');
            write_str(&mut self.out, name.as_bytes());
            self.out.push(b':');
            self.value(value.bind(py), depth)?;
        }
        self.out.push(b'}');
        Ok(())
    }

    fn dict(&mut self, dict: &Bound<'_, PyDict>, depth: usize) -> PyResult<()> {
        if dict.is_empty() {
            self.out.extend_from_slice(b"{}");
            return Ok(());
        }
        self.out.push(b'{');
        let mut first = true;
        let mut pair = |enc: &mut Self, k: &Bound<'_, PyAny>, v: &Bound<'_, PyAny>| {
            if !std::mem::take(&mut first) {
                enc.out.push(b',');
            }
            enc.key(k)?;
            enc.out.push(b':');
            enc.value(v, depth)
        };
        if dict.is_exact_instance_of::<PyDict>() {
            for (k, v) in dict.iter() {
                pair(self, &k, &v)?;
            }
        } else {
            // json goes through `items()` for dict subclasses
            let mut items = dict_items(dict)?;
            while let Some((k, v)) = next_item(&mut items)? {
                pair(self, &k, &v)?;
            }
        }
        self.out.push(b'}');
        Ok(())
    }

    fn sequence<'a, 'py: 'a>(
        &mut self,
        items: impl Iterator<Item = Bound<'py, PyAny>>,
        depth: usize,
    ) -> PyResult<()> {
        self.out.push(b'[');
        for (i, item) in items.enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.value(&item, depth)?;
        }
        self.out.push(b']');
        Ok(())
    }

    /// A str, None, bool, int or float (subclasses included); `None` for any other value.
    /// Kept out of line so that the frames of the recursion through [`Encoder::value`] stay
    /// small (see `MAX_DEPTH`).
    #[inline(never)]
    fn scalar(&mut self, value: &Bound<'_, PyAny>) -> Option<PyResult<()>> {
        if let Ok(s) = value.cast::<PyString>() {
            return Some(self.string(s));
        }
        if value.is_none() {
            self.out.extend_from_slice(b"null");
            return Some(Ok(()));
        }
        if value.is_instance_of::<PyBool>() {
            let t = match value.is_truthy() {
                Ok(t) => t,
                Err(e) => return Some(Err(e)),
            };
            self.out
                .extend_from_slice(if t { b"true" } else { b"false" });
            return Some(Ok(()));
        }
        if value.is_instance_of::<PyInt>() {
            return Some(self.int(value));
        }
        if value.is_instance_of::<PyFloat>() {
            return Some(self.float(value));
        }
        None
    }

    fn value(&mut self, value: &Bound<'_, PyAny>, depth: usize) -> PyResult<()> {
        if let Some(done) = self.scalar(value) {
            return done;
        }
        let py = value.py();
        let depth = depth + 1;
        if depth > MAX_DEPTH || !crate::stack::enough_left() {
            return Err(too_deep());
        }
        if let Ok(list) = value.cast::<PyList>() {
            return self.sequence(list.iter(), depth);
        }
        if let Ok(tuple) = value.cast::<PyTuple>() {
            return self.sequence(tuple.iter(), depth);
        }
        if let Ok(dict) = value.cast::<PyDict>() {
            return self.dict(dict, depth);
        }
        if let Ok(request) = value.cast::<JsonRpcRequest>() {
            let r = request.get();
            let members = [("id", &r.id), ("method", &r.method)];
            return self.message(py, &members, Some(&r.params), depth);
        }
        if let Ok(note) = value.cast::<JsonRpcNotification>() {
            let n = note.get();
            return self.message(py, &[("method", &n.method)], Some(&n.params), depth);
        }
        if let Ok(response) = value.cast::<JsonRpcResponse>() {
            let r = response.get();
            let outcome = if r.error.is_none(py) {
                ("result", &r.result)
            } else {
                ("error", &r.error)
            };
            return self.message(py, &[("id", &r.id), outcome], None, depth);
        }
        Err(unsupported(value))
    }
}

/// Encode a JSON-RPC payload to compact JSON text.
#[pyfunction]
pub fn encode_jsonrpc_message<'py>(
    py: Python<'py>,
    payload: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyString>> {
    // Taken out of the cell (not borrowed) so a nested call from Python code run by the
    // encoder, such as a dict subclass's `items()`, just starts a buffer of its own.
    let mut encoder = Encoder {
        out: BUFFER.with(|b| std::mem::take(&mut *b.borrow_mut())),
        surrogates: false,
    };
    encoder.out.clear();
    let result = encoder.value(payload, 0).and_then(|()| {
        if encoder.surrogates {
            PyBytes::new(py, &encoder.out)
                .call_method1(pyo3::intern!(py, "decode"), ("utf-8", "surrogatepass"))?
                .cast_into::<PyString>()
                .map_err(PyErr::from)
        } else {
            PyString::from_bytes(py, &encoder.out)
        }
    });
    if encoder.out.capacity() <= 1 << 20 {
        BUFFER.with(|b| *b.borrow_mut() = encoder.out);
    }
    result
}
