//! The JSON-RPC message classes (`JsonRpcRequest`, `JsonRpcNotification`, `JsonRpcResponse`):
//! immutable, keyword-only constructors that store their arguments unchecked, Python-level
//! equality and the contract's reprs.

use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::PyTraverseError;

/// `repr(value)` as a Rust string.
pub(crate) fn repr(value: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(value.repr()?.to_cow()?.into_owned())
}

/// A JSON-RPC request: has `method` and an `id` (`int` or `str`).
#[pyclass(frozen, module = "mcpstream._native")]
pub struct JsonRpcRequest {
    #[pyo3(get)]
    pub(crate) id: Py<PyAny>,
    #[pyo3(get)]
    pub(crate) method: Py<PyAny>,
    #[pyo3(get)]
    pub(crate) params: Py<PyAny>,
}

#[pymethods]
impl JsonRpcRequest {
    /// The cycle collector must see the fields: a message can sit inside its own params.
    /// No `__clear__`: the fields never change after construction, and every cycle through
    /// them also runs through a mutable container (dict, list, instance) whose clear breaks it.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.id)?;
        visit.call(&self.method)?;
        visit.call(&self.params)?;
        Ok(())
    }

    #[new]
    #[pyo3(signature = (*, id, method, params = None))]
    fn new(py: Python<'_>, id: Py<PyAny>, method: Py<PyAny>, params: Option<Py<PyAny>>) -> Self {
        Self {
            id,
            method,
            params: params.unwrap_or_else(|| py.None()),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "JsonRpcRequest(id={}, method={}, params={})",
            repr(self.id.bind(py))?,
            repr(self.method.bind(py))?,
            repr(self.params.bind(py))?
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<bool> {
        let other = other.get();
        Ok(self.id.bind(py).eq(&other.id)?
            && self.method.bind(py).eq(&other.method)?
            && self.params.bind(py).eq(&other.params)?)
    }
}

/// A JSON-RPC notification: has `method` and no `id`.
#[pyclass(frozen, module = "mcpstream._native")]
pub struct JsonRpcNotification {
    #[pyo3(get)]
    pub(crate) method: Py<PyAny>,
    #[pyo3(get)]
    pub(crate) params: Py<PyAny>,
}

#[pymethods]
impl JsonRpcNotification {
    /// The cycle collector must see the fields: a message can sit inside its own params.
    /// No `__clear__`: the fields never change after construction, and every cycle through
    /// them also runs through a mutable container (dict, list, instance) whose clear breaks it.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.method)?;
        visit.call(&self.params)?;
        Ok(())
    }

    #[new]
    #[pyo3(signature = (*, method, params = None))]
    fn new(py: Python<'_>, method: Py<PyAny>, params: Option<Py<PyAny>>) -> Self {
        Self {
            method,
            params: params.unwrap_or_else(|| py.None()),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "JsonRpcNotification(method={}, params={})",
            repr(self.method.bind(py))?,
            repr(self.params.bind(py))?
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<bool> {
        let other = other.get();
        Ok(self.method.bind(py).eq(&other.method)? && self.params.bind(py).eq(&other.params)?)
    }
}

/// A JSON-RPC response: exactly one of `result` / `error` was present.
#[pyclass(frozen, module = "mcpstream._native")]
pub struct JsonRpcResponse {
    #[pyo3(get)]
    pub(crate) id: Py<PyAny>,
    #[pyo3(get)]
    pub(crate) result: Py<PyAny>,
    #[pyo3(get)]
    pub(crate) error: Py<PyAny>,
}

#[pymethods]
impl JsonRpcResponse {
    /// The cycle collector must see the fields: a message can sit inside its own params.
    /// No `__clear__`: the fields never change after construction, and every cycle through
    /// them also runs through a mutable container (dict, list, instance) whose clear breaks it.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.id)?;
        visit.call(&self.result)?;
        visit.call(&self.error)?;
        Ok(())
    }

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

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "JsonRpcResponse(id={}, result={}, error={})",
            repr(self.id.bind(py))?,
            repr(self.result.bind(py))?,
            repr(self.error.bind(py))?
        ))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<bool> {
        let other = other.get();
        Ok(self.id.bind(py).eq(&other.id)?
            && self.result.bind(py).eq(&other.result)?
            && self.error.bind(py).eq(&other.error)?)
    }
}
