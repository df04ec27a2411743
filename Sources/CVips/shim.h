// Fixed-arity wrappers around the variadic parts of libvips that gallerygen uses.
// Swift cannot call C variadic functions or function-like macros (VIPS_INIT), so each call
// the Imaging module needs is spelled out here with its options as plain parameters.
#ifndef GALLERYGEN_CVIPS_SHIM_H
#define GALLERYGEN_CVIPS_SHIM_H

#include <string.h>
#include <vips/vips.h>

/// Starts libvips once per process; returns 0 on success.
static inline int gg_vips_init(const char *argv0) {
    return vips_init(argv0);
}

/// Sends libvips' own warnings and messages (the "VIPS-WARNING" lines it would print on
/// standard error) to `handler` instead, so that they can be reported against the photo.
static inline void gg_vips_capture_log(GLogFunc handler) {
    g_log_set_handler("VIPS", (GLogLevelFlags)(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE), handler, NULL);
}

/// Batch settings: no operation cache (it would hold images across thousands of files) and
/// `threads` worker threads per image pipeline.
static inline void gg_vips_configure(int threads) {
    vips_cache_set_max(0);
    vips_concurrency_set(threads);
}

/// Opens a file for its header only: no pixel is decoded until the image is read.
static inline VipsImage *gg_vips_open_header(const char *path) {
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

/// The EXIF orientation (1-8) of an opened image, 1 when it has none.
static inline int gg_vips_orientation(VipsImage *image) {
    int orientation = 1;
    if (vips_image_get_typeof(image, VIPS_META_ORIENTATION) &&
        vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation) == 0 &&
        orientation >= 1 && orientation <= 8) {
        return orientation;
    }
    return 1;
}

/// The name of the loader libvips picked for a file ("jpegload", ...), or NULL if none.
static inline const char *gg_vips_loader(const char *path) {
    return vips_foreign_find_load(path);
}

/// Opens `path` to decode it once, shrinking on load to fit `width` x `height` (never upscaled),
/// as stored: not turned by its EXIF orientation (gg_vips_autorot does that after decoding, since
/// vips_thumbnail's own turn decodes the whole image while the operation is built); fails on any
/// decoding error. No `export_profile`: on an image without an embedded profile, 8.14 would shift
/// its colours (gg_vips_icc_to_srgb is for images that have one).
static inline int gg_vips_thumbnail(const char *path, VipsImage **out, int width, int height) {
    return vips_thumbnail(path, out, width,
                          "height", height,
                          "size", VIPS_SIZE_DOWN,
                          "no_rotate", TRUE,
                          "fail_on", VIPS_FAIL_ON_ERROR,
                          NULL);
}

/// Turns an image upright by its EXIF orientation (all eight) and drops the orientation tag.
/// Sets the EXIF orientation (1-8) gg_vips_autorot turns an image by.
static inline void gg_vips_set_orientation(VipsImage *image, int orientation) {
    vips_image_set_int(image, VIPS_META_ORIENTATION, orientation);
}

static inline int gg_vips_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

/// Whether the image carries an ICC profile.
static inline int gg_vips_has_icc_profile(VipsImage *image) {
    return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;
}

/// Converts an image with an embedded profile to sRGB through that profile.
static inline int gg_vips_icc_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_PERCEPTUAL, NULL);
}

/// Removes the metadata items (EXIF, XMP, IPTC, ICC, orientation, comments) from an image this
/// code holds the only reference to. Header fields (width, filename, ...) are not touched:
/// removing those crashes libvips.
static inline void gg_vips_remove_metadata(VipsImage *image) {
    static const char *prefixes[] = {"exif-", "xmp-", "iptc-", "icc-", "orientation", "png-comment", "gif-comment",
                                     "heif-", "jpeg-thumbnail", "gps", NULL};
    gchar **fields = vips_image_get_fields(image);
    for (int i = 0; fields[i] != NULL; i++) {
        for (int p = 0; prefixes[p] != NULL; p++) {
            if (strncmp(fields[i], prefixes[p], strlen(prefixes[p])) == 0) {
                (void) vips_image_remove(image, fields[i]);
                break;
            }
        }
    }
    g_strfreev(fields);
}

/// A metadata string (libvips keeps each EXIF field as `value (readable, type, n components, n
/// bytes)`), or NULL when the image has no such field. Owned by the image.
static inline const char *gg_vips_metadata_string(VipsImage *image, const char *name) {
    GType type = vips_image_get_typeof(image, name);
    const char *value = NULL;
    if (type != VIPS_TYPE_REF_STRING && type != G_TYPE_STRING) return NULL;
    if (vips_image_get_string(image, name, &value) != 0) return NULL;
    return value;
}

/// The bytes of a blob field ("xmp-data", "iptc-data") of an opened image and their length, or
/// NULL when it has none. The bytes belong to the image.
static inline const void *gg_vips_metadata_blob(VipsImage *image, const char *name, size_t *length) {
    const void *data = NULL;
    *length = 0;
    if (vips_image_get_typeof(image, name) != VIPS_TYPE_BLOB) return NULL;
    if (vips_image_get_blob(image, name, &data, length) != 0) return NULL;
    return data;
}

/// Resizes an in-memory image to `width` pixels wide, keeping its aspect ratio, never upscaling.
static inline int gg_vips_thumbnail_image(VipsImage *in, VipsImage **out, int width) {
    return vips_thumbnail_image(in, out, width, "height", VIPS_MAX_COORD, "size", VIPS_SIZE_DOWN, NULL);
}

/// Converts to 8-bit sRGB (grey, 16-bit and CMYK images included).
static inline int gg_vips_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

/// Replaces transparency with white (JPEG has no alpha).
static inline int gg_vips_flatten_white(VipsImage *in, VipsImage **out) {
    double white[3] = {255.0, 255.0, 255.0};
    VipsArrayDouble *background = vips_array_double_new(white, 3);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

static inline int gg_vips_gaussblur(VipsImage *in, VipsImage **out, double sigma) {
    return vips_gaussblur(in, out, sigma, NULL);
}

/// The mean of one band.
static inline int gg_vips_band_mean(VipsImage *in, int band, double *mean) {
    VipsImage *extracted = NULL;
    if (vips_extract_band(in, &extracted, band, NULL) != 0) return -1;
    int result = vips_avg(extracted, mean, NULL);
    g_object_unref(extracted);
    return result;
}

/// The smallest value of the last band (the alpha of an sRGB image with 4 bands).
static inline int gg_vips_last_band_min(VipsImage *in, double *minimum) {
    VipsImage *extracted = NULL;
    if (vips_extract_band(in, &extracted, vips_image_get_bands(in) - 1, NULL) != 0) return -1;
    int result = vips_min(extracted, minimum, NULL);
    g_object_unref(extracted);
    return result;
}

/// Progressive JPEG, written to a file, metadata stripped.
static inline int gg_vips_jpegsave(VipsImage *in, const char *path, int quality) {
    return vips_jpegsave(in, path, "Q", quality, "strip", TRUE, "optimize_coding", TRUE,
                         "interlace", TRUE, NULL);
}

/// AVIF (HEIF with AV1), written to a file, metadata stripped.
static inline int gg_vips_avifsave(VipsImage *in, const char *path, int quality, int effort) {
    return vips_heifsave(in, path, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1,
                         "effort", effort, "strip", TRUE, NULL);
}

/// WebP into a buffer; free the buffer with g_free. libvips 8.14 writes an EXIF chunk even with
/// `strip`, so callers remove metadata chunks from the result (WebPContainer in Imaging).
static inline int gg_vips_webpsave_buffer(VipsImage *in, void **buffer, size_t *length, int quality, int effort) {
    return vips_webpsave_buffer(in, buffer, length, "Q", quality, "effort", effort, "strip", TRUE, NULL);
}

/// JPEG and PNG to a file with their metadata kept: used to make test images.
static inline int gg_vips_jpegsave_keeping_metadata(VipsImage *in, const char *path, int quality) {
    return vips_jpegsave(in, path, "Q", quality, NULL);
}

static inline int gg_vips_pngsave(VipsImage *in, const char *path) {
    return vips_pngsave(in, path, NULL);
}

static inline void gg_g_object_unref(void *object) {
    g_object_unref(object);
}

static inline void gg_g_free(void *pointer) {
    g_free(pointer);
}

#endif
