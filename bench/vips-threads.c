/*
 * Reproduces the liborc 0.4.33 race that gallerygen's Imaging module guards against
 * (Vips.serialised): libvips compiles an Orc program when it builds a resize or a blur and frees
 * it when the image goes; liborc splits and merges its list of code chunks without a lock.
 *
 *   make vips-threads                      # the three modes, a few minutes
 *   bench-work/vips-threads/vips-threads PHOTO THREADS unguarded|guarded|novector   # one mode
 *
 * unguarded: every thread builds and releases as it likes (crashes with SIGSEGV within about
 *            20-100 s of 4-8 threads on a 2-core machine with Debian 12's liborc);
 * guarded:   building and releasing under one mutex, computing outside it (gallerygen's way);
 * novector:  Orc off (vips_vector_set_enabled(FALSE)), no lock.
 * ITERATIONS (environment, default 1500) is the number of images per thread.
 */
#include <vips/vips.h>
#include <vips/vector.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *photo;
static int iterations = 1500;
static int guarded = 0;
static GMutex program_lock;

static void enter(void) { if (guarded) g_mutex_lock(&program_lock); }
static void leave(void) { if (guarded) g_mutex_unlock(&program_lock); }

static void release(VipsImage *image) {
    enter();
    g_object_unref(image);
    leave();
}

static void *work(void *unused) {
    (void) unused;
    for (int i = 0; i < iterations; i++) {
        VipsImage *thumbnail = NULL, *blurred = NULL;
        enter();
        int failed = vips_thumbnail(photo, &thumbnail, 96 + i % 7, NULL);
        leave();
        if (failed) {
            fprintf(stderr, "vips-threads: %s", vips_error_buffer());
            exit(1);
        }
        enter();
        failed = vips_gaussblur(thumbnail, &blurred, 0.8, NULL);
        leave();
        if (!failed) {
            double mean;
            (void) vips_avg(blurred, &mean, NULL);  /* the pixels are computed here, unguarded */
            release(blurred);
        }
        release(thumbnail);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s PHOTO THREADS unguarded|guarded|novector\n", argv[0]);
        return 2;
    }
    if (VIPS_INIT(argv[0])) return 1;
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    photo = argv[1];
    int threads = atoi(argv[2]);
    guarded = strcmp(argv[3], "guarded") == 0;
    if (strcmp(argv[3], "novector") == 0) vips_vector_set_enabled(FALSE);
    if (getenv("ITERATIONS")) iterations = atoi(getenv("ITERATIONS"));
    if (threads < 1 || threads > 64 || iterations < 1) return 2;

    pthread_t workers[64];
    for (int i = 0; i < threads; i++) pthread_create(&workers[i], NULL, work, NULL);
    for (int i = 0; i < threads; i++) pthread_join(workers[i], NULL);
    printf("vips-threads: %s, %d threads x %d images: no crash\n", argv[3], threads, iterations);
    return 0;
}
