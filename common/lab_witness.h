/* lab_witness.h — the keyed hash of a timed call's outputs that a task program commits to on
 * the grader's gate (lab_protocol.h: LAB_GATE_DONE), one definition for the GPU (the harness
 * hashes the copies it keeps on the device, common/task_run.cu), the CPU (the copies it keeps
 * in host memory) and the grader (which hashes the dump files of the repetitions it picked and
 * compares: grader/engine/grade/witness.c).
 *
 * The bytes are read as little-endian 32-bit words w[0 .. n) and a tail of bytes % 4 bytes.
 * Words are cut into chunks of LAB_WITNESS_CHUNK_WORDS; a chunk into LAB_WITNESS_LANES lanes,
 * lane l holding words l, l + 32, l + 64, ... of the chunk, so that a warp of the GPU reads a
 * chunk with coalesced loads, one lane a thread. Each lane is a chain h <- step(h, x) over its
 * words, started from a value of (key, chunk, lane); a chunk's hash chains its 32 lanes' in
 * order; the buffer's hash chains the chunks' in order, then the tail's bytes.
 *
 * step(h, x) = mix(h ^ x) + x, mix SplitMix64's finalizer (a bijection): the added x makes a
 * step one-way in x, so that, unlike a sum of mixes (which a generalized birthday search
 * breaks in seconds even at 128 bits when the key is known), no shortcut we know of finds
 * other bytes with a given hash. The key is no secret from the program that hashes (it runs
 * in that process): the hash does not hide the outputs, it binds them. What it gives the
 * grader is that the outputs dumped later are the ones that existed when the program said it
 * was done, unless the program found a 64-bit collision of a chained hash under tolerance
 * constraints (about 2^64 evaluations by brute force). Not a cryptographic hash: no claim
 * beyond that. */
#ifndef LAB_WITNESS_H
#define LAB_WITNESS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lab_draw.h"

#define LAB_WITNESS_LANES 32
#define LAB_WITNESS_LANE_WORDS 256
#define LAB_WITNESS_CHUNK_WORDS (LAB_WITNESS_LANES * LAB_WITNESS_LANE_WORDS)

static LAB_HD inline uint64_t lab_witness_step(uint64_t h, uint64_t x)
{
    return lab_draw_mix(h ^ x) + x;
}

/* Where lane l of chunk c starts. */
static LAB_HD inline uint64_t lab_witness_lane_seed(uint64_t key, uint64_t c, unsigned l)
{
    return lab_draw_mix(key + (c * LAB_WITNESS_LANES + l + 1) * LAB_DRAW_GOLDEN);
}

/* Word k of a lane (its position in the lane) as the step's input. */
static LAB_HD inline uint64_t lab_witness_word(uint32_t w, unsigned k)
{
    return ((uint64_t)w << 32) | k;
}

/* A chunk's hash from its lanes' chains. */
static LAB_HD inline uint64_t lab_witness_chunk_start(uint64_t key, uint64_t c)
{
    return lab_draw_mix(key ^ ((c + 1) * 0xbf58476d1ce4e5b9ull));
}

/* The buffer's chain: started from its length, fed the chunks' hashes, ended by the tail. */
static inline uint64_t lab_witness_begin(uint64_t key, size_t bytes)
{
    return lab_draw_mix(key ^ lab_draw_mix((uint64_t)bytes + LAB_DRAW_GOLDEN));
}

static inline uint64_t lab_witness_end(uint64_t h, const uint8_t *tail, size_t tail_n)
{
    for (size_t j = 0; j < tail_n; j++)
        h = lab_witness_step(h, ((uint64_t)tail[j] << 8) | (uint64_t)j | (1ull << 63));
    return lab_draw_mix(h);
}

/* Chunk c, on the CPU: its bytes at p, `words` of them whole (LAB_WITNESS_CHUNK_WORDS but in
 * the last chunk), so a reader of a file hashes it a chunk at a time. */
static inline uint64_t lab_witness_chunk_cpu(const uint8_t *p, size_t words, uint64_t c,
                                             uint64_t key)
{
    uint64_t ch = lab_witness_chunk_start(key, c);
    for (unsigned l = 0; l < LAB_WITNESS_LANES; l++) {
        uint64_t h = lab_witness_lane_seed(key, c, l);
        for (unsigned k = 0; k < LAB_WITNESS_LANE_WORDS; k++) {
            size_t i = (size_t)k * LAB_WITNESS_LANES + l;
            if (i >= words)
                break;
            uint32_t w;
            memcpy(&w, p + i * 4, 4);
            h = lab_witness_step(h, lab_witness_word(w, k));
        }
        ch = lab_witness_step(ch, h);
    }
    return ch;
}

/* The words of chunk c of n words. */
static inline size_t lab_witness_chunk_words(size_t n, size_t c)
{
    size_t from = c * LAB_WITNESS_CHUNK_WORDS, left = n - from;
    return left < LAB_WITNESS_CHUNK_WORDS ? left : LAB_WITNESS_CHUNK_WORDS;
}

/* The hash of `bytes` bytes at p, on the CPU. */
static inline uint64_t lab_witness_hash(const void *p, size_t bytes, uint64_t key)
{
    const uint8_t *b = (const uint8_t *)p;
    const size_t n = bytes / 4, chunks = (n + LAB_WITNESS_CHUNK_WORDS - 1) / LAB_WITNESS_CHUNK_WORDS;
    uint64_t h = lab_witness_begin(key, bytes);
    for (size_t c = 0; c < chunks; c++)
        h = lab_witness_step(h, lab_witness_chunk_cpu(b + c * LAB_WITNESS_CHUNK_WORDS * 4,
                                                      lab_witness_chunk_words(n, c), c, key));
    return lab_witness_end(h, b + n * 4, bytes % 4);
}

/* A repetition's hash: its buffers' hashes chained in the order of their names (strcmp), so
 * that the grader, which finds them as dump files, chains them in the same order. */
static inline uint64_t lab_witness_rep_begin(uint64_t key)
{
    return lab_draw_mix(key ^ 0x5851f42d4c957f2dull);
}

static inline uint64_t lab_witness_rep_add(uint64_t h, uint64_t buffer_hash)
{
    return lab_witness_step(h, buffer_hash);
}

#endif /* LAB_WITNESS_H */
