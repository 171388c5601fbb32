//! The JSON-RPC message classes (`JsonRpcRequest`, `JsonRpcNotification`, `JsonRpcResponse`):
//! immutable, keyword-only constructors that store their arguments unchecked, Python-level
//! equality and the contract's reprs (see [`crate::pyrecord`]).

use pyo3::prelude::*;

use crate::pyrecord::py_record;

py_record! {
    /// A JSON-RPC request: has `method` and an `id` (`int` or `str`).
    JsonRpcRequest { id: Py<PyAny>, method: Py<PyAny>, params: Py<PyAny> }

    #[new]
    #[pyo3(signature = (*, id, method, params = None))]
    fn new(py: Python<'_>, id: Py<PyAny>, method: Py<PyAny>, params: Option<Py<PyAny>>) -> Self {
        Self {
            id,
            method,
            params: params.unwrap_or_else(|| py.None()),
        }
    }
}

py_record! {
    /// A JSON-RPC notification: has `method` and no `id`.
    JsonRpcNotification { method: Py<PyAny>, params: Py<PyAny> }

    #[new]
    #[pyo3(signature = (*, method, params = None))]
    fn new(py: Python<'_>, method: Py<PyAny>, params: Option<Py<PyAny>>) -> Self {
        Self {
            method,
            params: params.unwrap_or_else(|| py.None()),
        }
    }
}

py_record! {
    /// A JSON-RPC response: exactly one of `result` / `error` was present.
    JsonRpcResponse { id: Py<PyAny>, result: Py<PyAny>, error: Py<PyAny> }

    #[new]
    #[pyo3(signature = (*, id, result = None, error = None))]
    fn new(
        py: Python<'_>,
        id: Py<PyAny>,
        result: Option<Py<PyAny>>,
        error: Option<Py<PyAny>>,
    ) -> Self {
        Self {
            id,
            result: result.unwrap_or_else(|| py.None()),
            error: error.unwrap_or_else(|| py.None()),
        }
    }

    /// True when this response carries an `error` object.
    #[getter]
    fn is_error(&self, py: Python<'_>) -> bool {
        !self.error.is_none(py)
    }
}
