;; Finds where a three-byte part occurs in memory[from, to), thirty-two offsets at a time,
;; each byte compared after setting the bits of its mask (0x20 where the part has an ASCII letter,
;; so that both cases of it compare equal to its lower case; see _caseless_scan.ts).
;; Assembled into _caseless_scan_wasm.ts by scripts/assemble_wasm.ts: edit this file, then run it.
(module
  (import "env" "memory" (memory 1))
  ;; The lanes of the sixteen offsets from $at where the part occurs (all ones there).
  (func $hits (param $at i32) (param $b0 v128) (param $b1 v128) (param $b2 v128)
    (param $m0 v128) (param $m1 v128) (param $m2 v128) (result v128)
    (v128.and
      (v128.and
        (i8x16.eq (v128.or (v128.load (local.get $at)) (local.get $m0)) (local.get $b0))
        (i8x16.eq (v128.or (v128.load offset=1 (local.get $at)) (local.get $m1)) (local.get $b1)))
      (i8x16.eq (v128.or (v128.load offset=2 (local.get $at)) (local.get $m2)) (local.get $b2))))
  ;; $part and $masks hold the three bytes in their low bytes, the first lowest.
  ;; Returns the first offset i in [from, to - 3] where the part occurs, or -1.
  (func (export "findCaseless") (param $from i32) (param $to i32) (param $part i32)
    (param $masks i32) (result i32)
    (local $i i32) (local $hits v128) (local $more v128)
    (local $b0 v128) (local $b1 v128) (local $b2 v128)
    (local $m0 v128) (local $m1 v128) (local $m2 v128)
    (local.set $b0 (i8x16.splat (local.get $part)))
    (local.set $b1 (i8x16.splat (i32.shr_u (local.get $part) (i32.const 8))))
    (local.set $b2 (i8x16.splat (i32.shr_u (local.get $part) (i32.const 16))))
    (local.set $m0 (i8x16.splat (local.get $masks)))
    (local.set $m1 (i8x16.splat (i32.shr_u (local.get $masks) (i32.const 8))))
    (local.set $m2 (i8x16.splat (i32.shr_u (local.get $masks) (i32.const 16))))
    (local.set $i (local.get $from))
    ;; Thirty-two offsets a step (two vectors), while the loads (up to i + 34) stay below $to.
    (block $done
      (loop $step
        (br_if $done (i32.gt_s (i32.add (local.get $i) (i32.const 34)) (local.get $to)))
        (local.set $hits (call $hits (local.get $i)
          (local.get $b0) (local.get $b1) (local.get $b2)
          (local.get $m0) (local.get $m1) (local.get $m2)))
        (local.set $more (call $hits (i32.add (local.get $i) (i32.const 16))
          (local.get $b0) (local.get $b1) (local.get $b2)
          (local.get $m0) (local.get $m1) (local.get $m2)))
        (if (v128.any_true (v128.or (local.get $hits) (local.get $more)))
          (then
            (if (v128.any_true (local.get $hits))
              (then (return
                (i32.add (local.get $i) (i32.ctz (i8x16.bitmask (local.get $hits)))))))
            (return (i32.add (i32.add (local.get $i) (i32.const 16))
              (i32.ctz (i8x16.bitmask (local.get $more)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 32)))
        (br $step)))
    ;; The last offsets, one at a time.
    (block $end
      (loop $tail
        (br_if $end (i32.gt_s (i32.add (local.get $i) (i32.const 3)) (local.get $to)))
        (if (i32.eq
              (i32.or
                (i32.or (i32.load8_u (local.get $i))
                  (i32.shl (i32.load8_u offset=1 (local.get $i)) (i32.const 8)))
                (i32.or (i32.shl (i32.load8_u offset=2 (local.get $i)) (i32.const 16))
                  (local.get $masks)))
              (local.get $part))
          (then (return (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tail)))
    (i32.const -1)))
