/* Message passing with C11 atomics: the flag's store has order ORDER
   (default release), its load is acquire.
     bmc-rmm reach --model pso -D ORDER=memory_order_relaxed examples/c/c11_mp.c
   relaxed: the data store may be overtaken under pso (a bug); release
   (or seq_cst): it may not (a release store follows a
   `membar #LoadStore|#StoreStore`). Under tso every order is safe. With
   -D GENERIC the same through GCC's generic `__atomic_store`/
   `__atomic_load` built-ins (values passed by pointer). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef ORDER
#define ORDER memory_order_release
#endif

int data;
atomic_int flag;

void *writer(void *arg) {
  data = 42;
#ifdef GENERIC
  int one = 1;
  __atomic_store(&flag, &one, ORDER);
#else
  atomic_store_explicit(&flag, 1, ORDER);
#endif
  return NULL;
}

void *reader(void *arg) {
  int f;
#ifdef GENERIC
  __atomic_load(&flag, &f, __ATOMIC_ACQUIRE);
#else
  f = atomic_load_explicit(&flag, memory_order_acquire);
#endif
  if (f)
    assert(data == 42);
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, writer, NULL);
  pthread_create(&b, NULL, reader, NULL);
  return 0;
}
