// A minimal parallel-for over the host's cores (pthreads).
#include "parallel.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

enum { MAX_THREADS = 32 };

typedef struct pool {
    size_t n, next;
    void (*fn)(size_t, void *);
    void *arg;
    pthread_mutex_t lock;
} pool;

static void *worker(void *p_)
{
    pool *p = (pool *)p_;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t item = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (item >= p->n)
            return NULL;
        p->fn(item, p->arg);
    }
}

void lab_parallel_for(size_t n, void (*fn)(size_t item, void *arg), void *arg)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = cpus > 1 ? (size_t)cpus : 1;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if (threads > n)
        threads = n;
    pool p = {n, 0, fn, arg, PTHREAD_MUTEX_INITIALIZER};
    pthread_t tid[MAX_THREADS];
    size_t started = 0;
    for (size_t t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, worker, &p) == 0)
            started++;
    worker(&p); // the calling thread works too, and alone if no thread could start
    for (size_t t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&p.lock);
}

typedef struct chunked {
    size_t n, chunk;
    void (*fn)(size_t, size_t, size_t, void *);
    void *arg;
} chunked;

static void one_chunk(size_t index, void *c_)
{
    const chunked *c = (const chunked *)c_;
    size_t begin = index * c->chunk;
    size_t end = c->n - begin > c->chunk ? begin + c->chunk : c->n;
    c->fn(index, begin, end, c->arg);
}

void lab_parallel_chunks(size_t n, size_t chunk,
                         void (*fn)(size_t index, size_t begin, size_t end, void *arg), void *arg)
{
    chunked c = {n, chunk, fn, arg};
    lab_parallel_for((n + chunk - 1) / chunk, one_chunk, &c);
}

typedef struct copy_job {
    char *dst;
    const char *src;
} copy_job;

static void copy_chunk(size_t index, size_t begin, size_t end, void *arg)
{
    (void)index;
    const copy_job *c = (const copy_job *)arg;
    memcpy(c->dst + begin, c->src + begin, end - begin);
}

void lab_parallel_memcpy(void *dst, const void *src, size_t bytes)
{
    enum { COPY_CHUNK = 4 << 20 };
    if (bytes <= COPY_CHUNK) {
        memcpy(dst, src, bytes);
        return;
    }
    copy_job c = {(char *)dst, (const char *)src};
    lab_parallel_chunks(bytes, COPY_CHUNK, copy_chunk, &c);
}
