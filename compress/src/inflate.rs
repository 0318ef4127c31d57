//! libdeflate's gzip expander with the one call `libdeflater` leaves out: the `_ex` form,
//! which says how many bytes the member took. Without it a payload of two members, or of one
//! with bytes after it, could not be told from one member alone, and was cut short silently.

use std::ptr::NonNull;

use libdeflate_sys::{
    libdeflate_alloc_decompressor, libdeflate_decompressor, libdeflate_free_decompressor,
    libdeflate_gzip_decompress_ex, libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE,
    libdeflate_result_LIBDEFLATE_SUCCESS,
};

/// Why a member did not expand.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(super) enum Failed {
    /// Not gzip, or corrupt.
    #[error("bad gzip data")]
    BadData,
    /// It expands to more than the room given.
    #[error("more data than room for it")]
    NoRoom,
}

/// An owned libdeflate decompressor.
pub(super) struct GzipExpander(NonNull<libdeflate_decompressor>);

// SAFETY: a decompressor holds only its own tables, used through `&mut self` by one thread at
// a time; libdeflate keeps no thread-local state.
unsafe impl Send for GzipExpander {}

impl GzipExpander {
    /// A new decompressor; `None` where libdeflate could not allocate one.
    pub(super) fn new() -> Option<GzipExpander> {
        // SAFETY: no arguments; the result is checked for null.
        NonNull::new(unsafe { libdeflate_alloc_decompressor() }).map(GzipExpander)
    }

    /// Expands the gzip member that starts `input` into `out`: the bytes of `input` it took
    /// and the bytes written.
    pub(super) fn expand(
        &mut self,
        input: &[u8],
        out: &mut [u8],
    ) -> Result<(usize, usize), Failed> {
        let (mut read, mut written) = (0usize, 0usize);
        // SAFETY: the pointers and lengths are those of live slices, `out` borrowed mutably;
        // libdeflate reads at most `input.len()` bytes and writes at most `out.len()`.
        let result = unsafe {
            libdeflate_gzip_decompress_ex(
                self.0.as_ptr(),
                input.as_ptr().cast(),
                input.len(),
                out.as_mut_ptr().cast(),
                out.len(),
                &mut read,
                &mut written,
            )
        };
        #[allow(non_upper_case_globals)]
        match result {
            libdeflate_result_LIBDEFLATE_SUCCESS => Ok((read, written)),
            libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE => Err(Failed::NoRoom),
            _ => Err(Failed::BadData),
        }
    }
}

impl Drop for GzipExpander {
    fn drop(&mut self) {
        // SAFETY: allocated by `libdeflate_alloc_decompressor`, freed once.
        unsafe { libdeflate_free_decompressor(self.0.as_ptr()) }
    }
}
