//! `BodyBuffer`: a response body received straight into the `bytes` object that carries it on.
//!
//! A large body read the usual way costs a new `bytes` object per read and a join of them all at
//! the end: two copies of every byte beside the kernel's. Here the reads go into one `bytes`
//! object (`socket.recv_into` or an asyncio buffered protocol, through the buffer protocol),
//! which `take` hands on as it is. The object is not shared until then (its reference count is
//! one), so filling and resizing it is what CPython's own code does with a fresh `bytes`.

use std::os::raw::{c_int, c_void};

use pyo3::exceptions::{PyBufferError, PyMemoryError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::prefault::Ahead;

extern "C" {
    // CPython's resize of a `bytes` object that nobody else holds yet (reference count one); in
    // the API of every CPython this module builds for, not exported by pyo3-ffi. Growing a
    // large one moves its pages (`mremap`) rather than copying them.
    fn _PyBytes_Resize(bytes: *mut *mut ffi::PyObject, newsize: ffi::Py_ssize_t) -> c_int;
}

/// One body, received into one `bytes` object (see the module).
#[pyclass(module = "mcpstream._native")]
pub struct BodyBuffer {
    /// The `bytes` object of `capacity` bytes, the first `filled` of them received. Held (also
    /// after `take`) for as long as this object lives, so that a view exported earlier never
    /// points into freed memory.
    storage: Py<PyBytes>,
    capacity: usize,
    filled: usize,
    /// How many bytes past `filled` the next exported view covers (`open`).
    window: usize,
    /// Views exported and not released yet: the storage must not move while there are any.
    exports: usize,
    taken: bool,
    ahead: Ahead,
}

impl BodyBuffer {
    fn data(&self, py: Python<'_>) -> *mut u8 {
        // SAFETY: `storage` is a live `bytes` object; its data is valid for `capacity` bytes.
        unsafe { ffi::PyBytes_AsString(self.storage.bind(py).as_ptr()) }.cast::<u8>()
    }

    fn check_open(&self) -> PyResult<()> {
        if self.taken {
            return Err(PyValueError::new_err("the body was taken from this buffer"));
        }
        Ok(())
    }

    /// Makes room for `additional` more bytes past `filled`.
    fn reserve_inner(&mut self, py: Python<'_>, additional: usize) -> PyResult<()> {
        let needed = self
            .filled
            .checked_add(additional)
            .ok_or_else(|| PyMemoryError::new_err("body too large"))?;
        if needed <= self.capacity {
            return Ok(());
        }
        if self.exports > 0 {
            return Err(PyBufferError::new_err(
                "the buffer cannot grow while a view of it is exported",
            ));
        }
        // at least double: a body that comes in many parts moves O(log n) times
        let capacity = needed.max(self.capacity.saturating_mul(2));
        self.resize(py, capacity)
    }

    fn resize(&mut self, py: Python<'_>, capacity: usize) -> PyResult<()> {
        let size = ffi::Py_ssize_t::try_from(capacity)
            .map_err(|_| PyMemoryError::new_err("body too large"))?;
        // Our reference, moved out of `storage` (an empty `bytes` stands in meanwhile): the only
        // one until `take`, as `_PyBytes_Resize` requires.
        let mut ptr =
            std::mem::replace(&mut self.storage, PyBytes::new(py, b"").unbind()).into_ptr();
        // SAFETY: `ptr` is the only reference to a `bytes` object nobody else has seen. On
        // success it points to the resized object (a new owned reference); on failure CPython
        // freed the object, set `ptr` to null and raised MemoryError.
        unsafe {
            if _PyBytes_Resize(&mut ptr, size) != 0 {
                self.capacity = 0;
                self.filled = 0;
                self.window = 0;
                self.taken = true;
                return Err(PyErr::fetch(py));
            }
            self.storage = Bound::from_owned_ptr(py, ptr)
                .cast_into_unchecked::<PyBytes>()
                .unbind();
        }
        self.capacity = capacity;
        Ok(())
    }
}

#[pymethods]
impl BodyBuffer {
    /// An empty buffer with room for `capacity` bytes (it grows as `reserve` asks).
    #[new]
    fn new(py: Python<'_>, capacity: usize) -> PyResult<Self> {
        let size = ffi::Py_ssize_t::try_from(capacity)
            .map_err(|_| PyMemoryError::new_err("body too large"))?;
        // SAFETY: a null source makes an uninitialized `bytes` of `size` bytes (new reference or
        // null with an exception set); its bytes are written before anyone reads them, since
        // `take` hands on only the `filled` ones.
        let storage = unsafe {
            Bound::from_owned_ptr_or_err(
                py,
                ffi::PyBytes_FromStringAndSize(std::ptr::null(), size),
            )?
            .cast_into_unchecked::<PyBytes>()
            .unbind()
        };
        Ok(Self {
            storage,
            capacity,
            filled: 0,
            window: 0,
            exports: 0,
            taken: false,
            ahead: Ahead::default(),
        })
    }

    /// Start a new body in this buffer, with room for `capacity` bytes. The storage of the body
    /// last taken is filled again where nobody holds that body any more (its pages are in
    /// already: no fresh ones to fault in and zero) and it has room enough; else new storage.
    fn renew(&mut self, py: Python<'_>, capacity: usize) -> PyResult<()> {
        if self.exports > 0 {
            return Err(PyBufferError::new_err(
                "the buffer cannot be renewed while a view of it is exported",
            ));
        }
        let ptr = self.storage.as_ptr();
        // SAFETY: `ptr` is the live storage; a reference count of one is ours alone, so no one
        // can see the bytes change (not even through a view: `exports` is zero).
        let alone = unsafe { ffi::Py_REFCNT(ptr) } == 1;
        if alone && self.capacity >= capacity && self.capacity > 0 {
            // SAFETY: as above; a hash an earlier holder had computed would not be the new
            // content's (`_PyBytes_Resize` below resets it only when the size changes).
            #[allow(deprecated)]
            unsafe {
                (*ptr.cast::<ffi::PyBytesObject>()).ob_shash = -1;
            }
            self.filled = 0;
            if self.capacity != capacity {
                self.resize(py, capacity)?;
            }
        } else {
            let fresh = Self::new(py, capacity)?;
            self.storage = fresh.storage;
            self.capacity = capacity;
        }
        self.filled = 0;
        self.window = 0;
        self.taken = false;
        self.ahead = Ahead::default();
        Ok(())
    }

    /// The bytes received so far.
    fn __len__(&self) -> usize {
        self.filled
    }

    /// Make room for `additional` more bytes (not while a view is exported).
    fn reserve(&mut self, py: Python<'_>, additional: usize) -> PyResult<()> {
        self.check_open()?;
        self.reserve_inner(py, additional)
    }

    /// Copy `data` in after the bytes received (growing as needed).
    fn extend(&mut self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        self.check_open()?;
        self.reserve_inner(py, data.len())?;
        let base = self.data(py);
        // SAFETY: `reserve_inner` left room for `data` past `filled` in the storage, which is
        // not `data` (a `bytes` object of the caller's, or a view of another object).
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), base.add(self.filled), data.len());
        }
        self.filled += data.len();
        self.window = self.window.saturating_sub(data.len());
        Ok(())
    }

    /// Let the next views cover the `size` bytes after those received (room for them is made
    /// first); returns `size`.
    fn open(&mut self, py: Python<'_>, size: usize) -> PyResult<usize> {
        self.check_open()?;
        self.reserve_inner(py, size)?;
        self.window = size;
        let base = self.data(py);
        // SAFETY: the first `filled` bytes of the storage were written.
        let received = unsafe { std::slice::from_raw_parts(base, self.filled) };
        // the pages the reads will write, faulted in ahead (a few megabytes at a time)
        self.ahead.grown(received, self.capacity);
        Ok(size)
    }

    /// A writable `memoryview` of the `window` bytes after those received (what a read of the
    /// socket fills).
    fn view<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        // SAFETY: a memoryview of an object with the buffer protocol (below): a new reference or
        // null with an exception set.
        unsafe {
            Bound::from_owned_ptr_or_err(slf.py(), ffi::PyMemoryView_FromObject(slf.as_ptr()))
        }
    }

    /// The bytes the views still cover (what `open` gave, less what arrived since).
    #[getter]
    fn window(&self) -> usize {
        self.window
    }

    /// `count` bytes arrived in the view last exported (after those received).
    fn advance(&mut self, py: Python<'_>, count: usize) -> PyResult<()> {
        self.check_open()?;
        if count > self.window {
            return Err(PyValueError::new_err(format!(
                "advance({count}) passes the {} bytes of the view",
                self.window
            )));
        }
        self.filled += count;
        self.window -= count;
        let base = self.data(py);
        // SAFETY: `filled` bytes of the storage were written (`open` made room for them).
        let slice = unsafe { std::slice::from_raw_parts(base, self.filled) };
        self.ahead.grown(slice, self.capacity);
        Ok(())
    }

    /// The body: the `bytes` object of the bytes received, as it is (no copy). The buffer can
    /// be used no more.
    fn take<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.check_open()?;
        if self.filled != self.capacity {
            if self.exports > 0 {
                return Err(PyBufferError::new_err(
                    "the body cannot be taken while a view of it is exported",
                ));
            }
            self.resize(py, self.filled)?;
        }
        self.taken = true;
        self.window = 0;
        Ok(self.storage.bind(py).clone())
    }

    /// A writable view of the `window` bytes after those received.
    unsafe fn __getbuffer__(
        mut slf: PyRefMut<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if slf.taken {
            return Err(PyBufferError::new_err(
                "the body was taken from this buffer",
            ));
        }
        let py = slf.py();
        let start = slf.data(py).wrapping_add(slf.filled);
        let len = ffi::Py_ssize_t::try_from(slf.window)
            .map_err(|_| PyMemoryError::new_err("view too large"))?;
        let owner = slf.as_ptr();
        // SAFETY: `PyBuffer_FillInfo` fills `view` for `len` writable bytes at `start` (inside
        // the storage, which cannot move or be freed while the view holds `owner`: `exports`
        // blocks resizes, and the storage lives as long as this object) and takes a reference
        // to `owner`; on failure it sets an exception and returns -1.
        if unsafe { ffi::PyBuffer_FillInfo(view, owner, start.cast::<c_void>(), len, 0, flags) }
            != 0
        {
            return Err(PyErr::fetch(py));
        }
        slf.exports += 1;
        Ok(())
    }

    unsafe fn __releasebuffer__(mut slf: PyRefMut<'_, Self>, _view: *mut ffi::Py_buffer) {
        slf.exports = slf.exports.saturating_sub(1);
    }
}
