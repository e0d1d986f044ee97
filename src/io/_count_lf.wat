;; Counts the \n bytes of memory[from, to) sixteen at a time (see _count_lf.ts).
;; Assembled into _count_lf_wasm.ts by scripts/assemble_wasm.ts: edit this file, then run it.
(module
  (import "env" "memory" (memory 1))
  (func (export "countLf") (param $from i32) (param $to i32) (result i32)
    (local $i i32) (local $total i32) (local $stop i32)
    (local $lanes v128) (local $lf v128) (local $sums v128)
    (local.set $lf (i8x16.splat (i32.const 10)))
    (local.set $i (local.get $from))
    ;; Rounds of 64-byte steps. A step adds at most 4 to each byte lane of $lanes, so a
    ;; round takes at most 63 steps (252 in a lane), then its lanes are summed into $total.
    (block $done
      (loop $round
        (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 64)) (local.get $to)))
        ;; The last step of this round starts at $stop at most: 62 steps on, or 64 bytes
        ;; before the end.
        (local.set $stop (i32.add (local.get $i) (i32.const 3968)))
        (if (i32.gt_u (local.get $stop) (i32.sub (local.get $to) (i32.const 64)))
          (then (local.set $stop (i32.sub (local.get $to) (i32.const 64)))))
        (local.set $lanes (v128.const i32x4 0 0 0 0))
        (loop $step
          ;; (A lane equal to \n is -1: subtracting it adds one.)
          (local.set $lanes (i8x16.sub (local.get $lanes)
            (i8x16.eq (v128.load (local.get $i)) (local.get $lf))))
          (local.set $lanes (i8x16.sub (local.get $lanes)
            (i8x16.eq (v128.load offset=16 (local.get $i)) (local.get $lf))))
          (local.set $lanes (i8x16.sub (local.get $lanes)
            (i8x16.eq (v128.load offset=32 (local.get $i)) (local.get $lf))))
          (local.set $lanes (i8x16.sub (local.get $lanes)
            (i8x16.eq (v128.load offset=48 (local.get $i)) (local.get $lf))))
          (local.set $i (i32.add (local.get $i) (i32.const 64)))
          (br_if $step (i32.le_u (local.get $i) (local.get $stop))))
        (local.set $sums
          (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $lanes))))
        (local.set $total (i32.add (local.get $total)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $sums)) (i32x4.extract_lane 1 (local.get $sums)))
            (i32.add (i32x4.extract_lane 2 (local.get $sums)) (i32x4.extract_lane 3 (local.get $sums))))))
        (br $round)))
    ;; The last bytes, fewer than 64, one at a time.
    (block $end
      (loop $tail
        (br_if $end (i32.ge_u (local.get $i) (local.get $to)))
        (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 10))
          (then (local.set $total (i32.add (local.get $total) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tail)))
    (local.get $total)))
