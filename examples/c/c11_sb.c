/* Store buffering with C11 atomics (<stdatomic.h>). The stores' and
   loads' memory order is ORDER (default seq_cst):
     bmc-rmm reach --model tso -D ORDER=memory_order_relaxed examples/c/c11_sb.c
   relaxed, release/acquire: both loads may read 0 under tso and pso (the
   stores are plain, as x86 and SPARC compile them); seq_cst: they may not
   (a seq_cst store is a locked store). With -D FENCE=memory_order_seq_cst
   an `atomic_thread_fence` between store and load (a full fence) restores
   SC; a weaker fence (acq_rel) does not. docs/c.md, "C11 atomics". */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef ORDER
#define ORDER memory_order_seq_cst
#endif
#ifndef LOAD_ORDER
#define LOAD_ORDER ORDER
#endif

atomic_int x, y;
int r0, r1;

void *t0(void *arg) {
  atomic_store_explicit(&x, 1, ORDER);
#ifdef FENCE
  atomic_thread_fence(FENCE);
#endif
  r0 = atomic_load_explicit(&y, LOAD_ORDER);
  return NULL;
}

void *t1(void *arg) {
  atomic_store_explicit(&y, 1, ORDER);
#ifdef FENCE
  atomic_thread_fence(FENCE);
#endif
  r1 = atomic_load_explicit(&x, LOAD_ORDER);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, t0, NULL);
  pthread_create(&b, NULL, t1, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(!(r0 == 0 && r1 == 0));
  return 0;
}
