//! Domain names in presentation format: being written.
