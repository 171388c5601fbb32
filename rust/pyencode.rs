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

    // Inlined into `value`: one frame per level of nesting rather than two.
    #[inline(always)]
    fn dict(&mut self, dict: &Bound<'_, PyDict>, depth: usize) -> PyResult<()> {
        if dict.is_empty() {
            self.out.extend_from_slice(b"{}");
            return Ok(());
        }
        self.out.push(b'{');
        if dict.is_exact_instance_of::<PyDict>() {
            // PyDict_Next rather than PyO3's iterator, whose state made this frame (one per
            // level of nesting) half as large again; the key and value are owned while in use,
            // so Python code that the encoder runs cannot free them under it.
            let py = dict.py();
            let (mut pos, mut index) = (0, 0);
            let mut k: *mut ffi::PyObject = std::ptr::null_mut();
            let mut v: *mut ffi::PyObject = std::ptr::null_mut();
            // SAFETY: `dict` is a live dict; PyDict_Next bounds-checks `pos` against the dict's
            // current table, and sets `k` and `v` to borrowed references when it returns 1.
            while unsafe { ffi::PyDict_Next(dict.as_ptr(), &mut pos, &mut k, &mut v) } != 0 {
                // SAFETY: borrowed references just returned by PyDict_Next, made owned here.
                let (key, value) = unsafe {
                    (
                        Bound::from_borrowed_ptr(py, k),
                        Bound::from_borrowed_ptr(py, v),
                    )
                };
                self.member(index, &key, &value, depth)?;
                index += 1;
            }
        } else {
            self.dict_subclass(dict, depth)?;
        }
        self.out.push(b'}');
        Ok(())
    }

    /// The members of a dict subclass, through its `items()` as json does. Out of line, so
    /// that its locals do not weigh on the frames of the usual recursion (see `MAX_DEPTH`).
    #[inline(never)]
    fn dict_subclass(&mut self, dict: &Bound<'_, PyDict>, depth: usize) -> PyResult<()> {
        let items = dict.call_method0(pyo3::intern!(dict.py(), "items"))?;
        for (index, item) in items.try_iter()?.enumerate() {
            let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
            self.member(index, &k, &v, depth)?;
        }
        Ok(())
    }

    /// One `key:value` of an object, after a comma unless it is the first (`index` 0).
    fn member(
        &mut self,
        index: usize,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        depth: usize,
    ) -> PyResult<()> {
        if index > 0 {
            self.out.push(b',');
        }
        self.key(key)?;
        self.out.push(b':');
        self.value(value, depth)
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
        self.jsonrpc_object(value, depth)
    }

    /// A `JsonRpcRequest`, `JsonRpcNotification` or `JsonRpcResponse` at level `depth`, or
    /// the "cannot encode" error. Out of line, as [`Encoder::scalar`] is.
    #[inline(never)]
    fn jsonrpc_object(&mut self, value: &Bound<'_, PyAny>, depth: usize) -> PyResult<()> {
        let py = value.py();
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
