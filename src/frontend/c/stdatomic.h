/* bmc-rmm's <stdatomic.h> (docs/c.md, "C11 atomics"): the C11 atomics
   API as calls that the C front-end lowers itself (src/frontend/c/expr.rs,
   `atomic_builtin`), in place of the compiler's header, whose macros use
   `__auto_type` and `typeof`. The preprocessor finds it before the
   system's header; a `stdatomic.h` next to the input file comes first. */
#ifndef __BMC_RMM_STDATOMIC_H
#define __BMC_RMM_STDATOMIC_H

/* The values of GCC's __ATOMIC_* macros. */
typedef enum {
  memory_order_relaxed = 0,
  memory_order_consume = 1,
  memory_order_acquire = 2,
  memory_order_release = 3,
  memory_order_acq_rel = 4,
  memory_order_seq_cst = 5
} memory_order;

typedef _Atomic _Bool atomic_bool;
typedef _Atomic char atomic_char;
typedef _Atomic signed char atomic_schar;
typedef _Atomic unsigned char atomic_uchar;
typedef _Atomic short atomic_short;
typedef _Atomic unsigned short atomic_ushort;
typedef _Atomic int atomic_int;
typedef _Atomic unsigned int atomic_uint;
typedef _Atomic long atomic_long;
typedef _Atomic unsigned long atomic_ulong;
typedef _Atomic long long atomic_llong;
typedef _Atomic unsigned long long atomic_ullong;
typedef _Atomic long atomic_intptr_t;
typedef _Atomic unsigned long atomic_uintptr_t;
typedef _Atomic unsigned long atomic_size_t;
typedef _Atomic long atomic_ptrdiff_t;
typedef _Atomic long atomic_intmax_t;
typedef _Atomic unsigned long atomic_uintmax_t;
typedef _Atomic _Bool atomic_flag;

#define ATOMIC_VAR_INIT(V) (V)
#define ATOMIC_FLAG_INIT 0
#define kill_dependency(Y) (Y)
#define atomic_is_lock_free(P) 1
#define atomic_init(P, V) atomic_store_explicit(P, V, memory_order_relaxed)

#define atomic_load(P) atomic_load_explicit(P, memory_order_seq_cst)
#define atomic_store(P, V) atomic_store_explicit(P, V, memory_order_seq_cst)
#define atomic_exchange(P, V) atomic_exchange_explicit(P, V, memory_order_seq_cst)
#define atomic_compare_exchange_strong(P, E, V) \
  atomic_compare_exchange_strong_explicit(P, E, V, memory_order_seq_cst, memory_order_seq_cst)
#define atomic_compare_exchange_weak(P, E, V) \
  atomic_compare_exchange_weak_explicit(P, E, V, memory_order_seq_cst, memory_order_seq_cst)
#define atomic_fetch_add(P, V) atomic_fetch_add_explicit(P, V, memory_order_seq_cst)
#define atomic_fetch_sub(P, V) atomic_fetch_sub_explicit(P, V, memory_order_seq_cst)
#define atomic_fetch_or(P, V) atomic_fetch_or_explicit(P, V, memory_order_seq_cst)
#define atomic_fetch_xor(P, V) atomic_fetch_xor_explicit(P, V, memory_order_seq_cst)
#define atomic_fetch_and(P, V) atomic_fetch_and_explicit(P, V, memory_order_seq_cst)
#define atomic_flag_test_and_set(P) atomic_exchange_explicit(P, 1, memory_order_seq_cst)
#define atomic_flag_test_and_set_explicit(P, MO) atomic_exchange_explicit(P, 1, MO)
#define atomic_flag_clear(P) atomic_store_explicit(P, 0, memory_order_seq_cst)
#define atomic_flag_clear_explicit(P, MO) atomic_store_explicit(P, 0, MO)

#endif
