//! `py_record!`: the shape every immutable value class of `mcpstream._native` shares (the
//! JSON-RPC messages, `SseEvent`, `JsonRpcEvent`), written once: a frozen `#[pyclass]` whose
//! fields are read-only attributes, seen by the cycle collector, shown by `__repr__` and
//! compared by `__eq__`, in the order they are declared.

use pyo3::prelude::*;

/// `repr(value)` as a Rust string.
pub(crate) fn repr(value: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(value.repr()?.to_cow()?.into_owned())
}

/// Declares a frozen value class and its `#[pymethods]` block:
///
/// ```ignore
/// py_record! {
///     /// Doc of the class.
///     Name { field: Py<PyAny>, other: Py<PyTuple> }
///     // the rest of the #[pymethods] block: #[new], getters, __hash__...
/// }
/// ```
///
/// generates the struct (every field `#[pyo3(get)]`), `__traverse__`, `__repr__`
/// (`Name(field=..., other=...)`) and `__eq__` (Python `==` field by field, against another
/// instance of the class). Write `Name { ... } custom_eq;` to leave `__eq__` to the rest of the
/// block. The macro only writes the boilerplate: the methods are the same code the classes had
/// spelled out, and Rust builds instances with a struct literal as before. The calling module
/// has `pyo3::prelude::*` in scope (the methods call its traits).
macro_rules! py_record {
    (
        $(#[$meta:meta])*
        $class:ident { $($field:ident: $ty:ty),+ $(,)? }
        custom_eq;
        $($methods:tt)*
    ) => {
        $crate::pyrecord::py_record!(@emit [$(#[$meta])*] $class { $($field: $ty),+ } $($methods)*);
    };
    (
        $(#[$meta:meta])*
        $class:ident { $($field:ident: $ty:ty),+ $(,)? }
        $($methods:tt)*
    ) => {
        $crate::pyrecord::py_record!(@emit [$(#[$meta])*] $class { $($field: $ty),+ }
            fn __eq__(
                &self,
                py: ::pyo3::Python<'_>,
                other: &::pyo3::Bound<'_, Self>,
            ) -> ::pyo3::PyResult<bool> {
                let other = other.get();
                Ok(true $(&& self.$field.bind(py).eq(&other.$field)?)+)
            }

            $($methods)*
        );
    };
    (@emit [$($meta:tt)*] $class:ident { $($field:ident: $ty:ty),+ } $($methods:tt)*) => {
        $($meta)*
        #[::pyo3::pyclass(frozen, module = "mcpstream._native")]
        pub struct $class {
            $(
                #[pyo3(get)]
                pub(crate) $field: $ty,
            )+
        }

        #[::pyo3::pymethods]
        impl $class {
            /// The fields can hold any object (a message can sit inside its own params, an
            /// event's messages can refer back to the event): the cycle collector must see
            /// them. No `__clear__`: the fields never change after construction, and every
            /// cycle through them also runs through a mutable container (dict, list, instance)
            /// whose clear breaks it.
            fn __traverse__(
                &self,
                visit: ::pyo3::gc::PyVisit<'_>,
            ) -> Result<(), ::pyo3::PyTraverseError> {
                $(visit.call(&self.$field)?;)+
                Ok(())
            }

            fn __repr__(&self, py: ::pyo3::Python<'_>) -> ::pyo3::PyResult<String> {
                let fields = [$(
                    format!(
                        concat!(stringify!($field), "={}"),
                        $crate::pyrecord::repr(self.$field.bind(py).as_any())?
                    )
                ),+];
                Ok(format!(concat!(stringify!($class), "({})"), fields.join(", ")))
            }

            $($methods)*
        }
    };
}

pub(crate) use py_record;
