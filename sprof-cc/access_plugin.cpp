// SPDX-License-Identifier: GPL-3.0-or-later
// (a gcc plugin runs inside gcc, on gcc's internals: gcc loads only plugins
// that declare themselves GPL-compatible.)
//
// sprof_access_plugin.so: the gcc plugin sprof-cc and sprof-c++ load into
// cc1 and cc1plus. gcc's ThreadSanitizer instrumentation calls a hook
// before every load and store; a call per access costs more than the rest
// of the locality collection together (the call, the caller-saved
// registers it clobbers, the program's values reloaded after it). Right
// after gcc's tsan pass, this pass replaces each call of
// __tsan_read1/2/4/8, __tsan_write1/2/4/8 and their volatile forms by the
// hooks' fast path (count_access in sprof/hot_path.hpp), inline, on the
// thread-local HotPath (initial-exec TLS, defined by libsprof_access.so and
// by the runtime). Unaligned accesses of up to 8 bytes and 16-byte ones
// (gcc's range and 16-byte hooks) are inline when their bytes lie in one
// line and call their hook when they straddle two (inline_range); other
// range accesses, atomics and vtable-pointer stores keep their calls, told
// what they touch.
//
// The calls of one basic block with no other call between them form a
// group: it takes its access numbers at once, and each run of its accesses
// probes the filter of watched lines (inline_group below): a run is one
// access, or consecutive accesses at constant offsets from one pointer,
// which one 2-, 4- or 8-byte probe covers (the filter's granules of nearby
// addresses are neighbours: sprof/hot_path.hpp). A probe that hits, or a
// group that holds the next event, takes the run's slow branch, which calls
// the very hooks it replaced, one per access, with the count set to the
// first one's number minus one: each hook counts its access and decides as
// it always did, so the numbering of accesses, the sample points, the
// watched-line checks, the access's kind and size are those of a build
// without the plugin, and so is its PC (the hook's return address − 1: its
// call in the slow branch, at the access's source location in the same
// function).
// First: gcc's headers poison parts of the C library.
#include <vector>

#include "sprof/hot_path.hpp"

// gcc's headers, in the order they need each other.
#include <gcc-plugin.h>
#include <plugin-version.h>
#include <tree.h>
#include <tree-pass.h>
#include <context.h>
#include <basic-block.h>
#include <cfgloop.h>
#include <gimple.h>
#include <gimple-iterator.h>
#include <gimple-ssa.h>
#include <ssa.h>
#include <stringpool.h>
#include <tree-into-ssa.h>
#include <tree-ssa-alias.h>
#include <cgraph.h>
#include <attribs.h>
#include <diagnostic-core.h>
#include <tree-dfa.h>
#include <fold-const.h>

int plugin_is_GPL_compatible;

namespace {

// Trees kept across functions, registered with gcc's garbage collector.
tree g_trees[5 + 16 + 4];
tree& g_hot_decl = g_trees[0];     // the thread-local HotPath
tree& g_hot_alias = g_trees[1];    // pointer to a type of its own alias set: HotPath's fields alias nothing else
tree& g_filter_type = g_trees[2];  // const unsigned char *
tree& g_hook_type = g_trees[3];    // void (const void *, HotPath *), with the hooks' side effects spelled out
tree& g_range_type = g_trees[4];   // void (const void *, size_t, HotPath *), likewise
tree* const g_hooks = g_trees + 5;        // the hooks, of g_hook_type, by position in kInlined
tree* const g_called_hooks = g_trees + 21;  // the hooks, of g_range_type, by position in kCalled

const ggc_root_tab g_roots[] = {
    {g_trees, sizeof g_trees / sizeof g_trees[0], sizeof(tree), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    LAST_GGC_ROOT_TAB};

void make_trees() {
    if (g_hot_decl) return;
    // As large and aligned as HotPath, so gcc's alias oracle sees every field inside it.
    tree type = build_array_type_nelts(uint64_type_node, sizeof(sprof::HotPath) / 8);
    tree id = get_identifier(SPROF_HOT_PATH_SYMBOL);
    tree decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, id, type);
    SET_DECL_ASSEMBLER_NAME(decl, id);
    TREE_PUBLIC(decl) = 1;
    DECL_EXTERNAL(decl) = 1;
    TREE_STATIC(decl) = 1;
    TREE_ADDRESSABLE(decl) = 1;
    TREE_USED(decl) = 1;
    DECL_ARTIFICIAL(decl) = 1;
    DECL_IGNORED_P(decl) = 1;
    set_decl_tls_model(decl, TLS_MODEL_INITIAL_EXEC);
    g_hot_decl = decl;

    // The program's own loads and stores (ints, doubles, pointers) never
    // alias HotPath: give its fields an alias set of their own, so storing
    // the count does not make gcc reload the program's values.
    tree own = build_distinct_type_copy(uint64_type_node);
    TYPE_ALIAS_SET(own) = new_alias_set();
    g_hot_alias = build_pointer_type(own);
    g_filter_type = build_pointer_type(build_qualified_type(unsigned_char_type_node, TYPE_QUAL_CONST));

    // What a hook touches, for gcc's alias oracle ("fn spec", see gcc's
    // attr-fnspec.h): nothing but what its arguments point to ('c'); the
    // access's address is not dereferenced ('R'); the HotPath, passed as a
    // second argument the hook never looks at, may be read and written
    // ('w'). So the program's values stay in registers across a slow branch
    // as they do across its fast path.
    const char spec[] = ".cR w ";
    tree attr = tree_cons(get_identifier("fn spec"), build_tree_list(NULL_TREE, build_string(6, spec)), NULL_TREE);
    g_hook_type = build_type_attribute_variant(
        build_function_type_list(void_type_node, ptr_type_node, ptr_type_node, NULL_TREE), attr);
    // The hooks that stay calls, the same way: the size is a number ('.').
    const char range_spec[] = ".cR . w ";
    tree range_attr =
        tree_cons(get_identifier("fn spec"), build_tree_list(NULL_TREE, build_string(8, range_spec)), NULL_TREE);
    g_range_type = build_type_attribute_variant(
        build_function_type_list(void_type_node, ptr_type_node, size_type_node, ptr_type_node, NULL_TREE),
        range_attr);
}

// hot.FIELD as an operand, `hot` the HotPath's address.
tree hot_field(tree hot, tree type, size_t offset) {
    return build2(MEM_REF, type, hot, build_int_cst(g_hot_alias, offset));
}

// Inserts statements before an iterator (at the end of an empty block: in
// order), all at the access's location.
struct Emitter {
    gimple_stmt_iterator gsi;
    location_t where;

    void add(gimple* g) {
        gimple_set_location(g, where);
        gsi_insert_before(&gsi, g, GSI_SAME_STMT);
    }
    // lhs = a CODE b, or lhs = (type) a with code NOP_EXPR.
    tree value(tree type, tree_code code, tree a, tree b = NULL_TREE) {
        tree lhs = make_ssa_name(type);
        add(b ? gimple_build_assign(lhs, code, a, b) : gimple_build_assign(lhs, code, a));
        return lhs;
    }
    tree load(tree type, tree ref) {
        tree lhs = make_ssa_name(type);
        add(gimple_build_assign(lhs, ref));
        return lhs;
    }
    tree load(tree hot, tree type, size_t offset) { return load(type, hot_field(hot, type, offset)); }
};

// The hooks whose calls become an inline fast path.
const built_in_function kInlined[16] = {
    BUILT_IN_TSAN_READ1,          BUILT_IN_TSAN_READ2,          BUILT_IN_TSAN_READ4,
    BUILT_IN_TSAN_READ8,          BUILT_IN_TSAN_WRITE1,         BUILT_IN_TSAN_WRITE2,
    BUILT_IN_TSAN_WRITE4,         BUILT_IN_TSAN_WRITE8,         BUILT_IN_TSAN_VOLATILE_READ1,
    BUILT_IN_TSAN_VOLATILE_READ2, BUILT_IN_TSAN_VOLATILE_READ4, BUILT_IN_TSAN_VOLATILE_READ8,
    BUILT_IN_TSAN_VOLATILE_WRITE1, BUILT_IN_TSAN_VOLATILE_WRITE2, BUILT_IN_TSAN_VOLATILE_WRITE4,
    BUILT_IN_TSAN_VOLATILE_WRITE8};

// The position in kInlined of the hook g calls, or -1.
int inlined_hook(const gimple* g) {
    if (!gimple_call_builtin_p(g, BUILT_IN_NORMAL)) return -1;
    for (int i = 0; i < 16; ++i)
        if (DECL_FUNCTION_CODE(gimple_call_fndecl(g)) == kInlined[i]) return i;
    return -1;
}

// The hooks of accesses that may straddle lines, and the number of bytes
// each takes: its second argument (0) or a fixed size.
const built_in_function kCalled[4] = {BUILT_IN_TSAN_READ_RANGE, BUILT_IN_TSAN_WRITE_RANGE, BUILT_IN_TSAN_READ16,
                                      BUILT_IN_TSAN_WRITE16};
const unsigned kCalledSize[4] = {0, 0, 16, 16};

// (gimple_call_builtin_p would refuse the range hooks: gcc's tsan pass
// passes their size as a sizetype, the builtin's type says pointer-sized.)
int called_hook(const gimple* g) {
    if (!is_gimple_call(g) || !gimple_call_fndecl(g) || !fndecl_built_in_p(gimple_call_fndecl(g), BUILT_IN_NORMAL))
        return -1;
    for (unsigned i = 0; i < 4; ++i)
        if (DECL_FUNCTION_CODE(gimple_call_fndecl(g)) == kCalled[i])
            return gimple_call_num_args(g) == (kCalledSize[i] ? 1u : 2u) ? static_cast<int>(i) : -1;
    return -1;
}

// A declaration of the symbol `call` calls, of `type`.
tree told_decl(tree& decl, gcall* call, tree type) {
    if (!decl) {
        decl = build_fn_decl(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(gimple_call_fndecl(call))), type);
        DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("leaf"), NULL_TREE, NULL_TREE);
    }
    return decl;
}

// A call of the same hook (the same symbol) that tells gcc what it touches.
gcall* told_hook_call(gcall* call, tree hot) {
    gcall* told = gimple_build_call(told_decl(g_hooks[inlined_hook(call)], call, g_hook_type), 2,
                                    gimple_call_arg(call, 0), hot);
    gimple_set_location(told, gimple_location(call));
    return told;
}

// The same for a hook that stays a call (the 16-byte ones get their size
// as the range hooks do; the hook ignores it and the HotPath): it no longer
// makes gcc reload the program's values from memory after it.
void tell_called_hook(gcall* call, tree hot) {
    const int i = called_hook(call);
    tree size = kCalledSize[i] ? size_int(kCalledSize[i]) : gimple_call_arg(call, 1);
    gcall* told = gimple_build_call(told_decl(g_called_hooks[i], call, g_range_type), 3, gimple_call_arg(call, 0),
                                    size, hot);
    gimple_set_location(told, gimple_location(call));
    gimple_stmt_iterator at = gsi_for_stmt(call);
    gsi_replace(&at, told, false);
    cgraph_update_edges_for_call_stmt(call, gimple_call_fndecl(call), told);
}

// The filter a group of accesses probes, and its mask: the HotPath's, or,
// when the group holds the next event, bytes that are never 0 (every run
// of the group then takes the slow branch, whose hooks tell the event's
// access from the others).
struct Probe {
    tree filter, mask;
};

// The 64-bit signed type of HotPath::until_event.
tree until_type() { return signed_type_for(uint64_type_node); }

// until_event as a slow block reads it: from memory (a volatile load),
// never the value a group's start left, which gcc would otherwise keep in
// a register for it, making the start a load, a subtraction and a store
// instead of one subtraction in memory.
tree read_until_event(Emitter& e, tree hot) {
    tree ref = hot_field(hot, until_type(), offsetof(sprof::HotPath, until_event));
    TREE_THIS_VOLATILE(ref) = 1;
    return e.load(until_type(), ref);
}

// In a slow block (the rare branch): the filter for the accesses left.
Probe group_probe(Emitter& e, tree hot, tree always) {
    using sprof::HotPath;
    tree left = read_until_event(e, hot);
    tree due = e.value(boolean_type_node, LT_EXPR, left, build_int_cst(until_type(), 0));
    tree filter = e.load(hot, g_filter_type, offsetof(HotPath, filter));
    tree mask = e.load(hot, uint64_type_node, offsetof(HotPath, filter_mask));
    tree lhs = make_ssa_name(g_filter_type);
    e.add(gimple_build_assign(lhs, COND_EXPR, due, always, filter));
    tree masked = make_ssa_name(uint64_type_node);
    e.add(gimple_build_assign(masked, COND_EXPR, due, build_int_cst(uint64_type_node, 0), mask));
    return {lhs, masked};
}

// The statement before an iterator of bb (the last one, at its end).
gimple* last_before(gimple_stmt_iterator at, basic_block bb) {
    if (gsi_end_p(at)) return gsi_stmt(gsi_last_bb(bb));
    gsi_prev(&at);
    return gsi_stmt(at);
}

// until_event = now − delta, in memory (a signal handler's accesses in
// between stay counted); the new value.
tree store_until_event(Emitter& e, tree hot, tree now, HOST_WIDE_INT delta) {
    tree type = until_type();
    tree left = e.value(type, MINUS_EXPR, now, build_int_cst(type, delta));
    e.add(gimple_build_assign(hot_field(hot, type, offsetof(sprof::HotPath, until_event)), left));
    return left;
}

// until_event −= delta, as a slow block does it (read_until_event).
void count_accesses(Emitter& e, tree hot, HOST_WIDE_INT delta) {
    if (delta != 0) store_until_event(e, hot, read_until_event(e, hot), delta);
}

// until_event −= delta, as the fast path does it: gcc may fold the load
// into the subtraction; the new value, which the test for the event reads.
tree take_numbers(Emitter& e, tree hot, HOST_WIDE_INT delta) {
    return store_until_event(e, hot, e.load(hot, until_type(), offsetof(sprof::HotPath, until_event)), delta);
}

// An access's address as a base, a variable part and a constant offset:
// the object or pointer it is computed from and the variable index into it
// (&a[i].f: a, i · sizeof a[0], offsetof f), or the address itself at 0.
// Two places with the same base and variable part lie a constant apart.
struct Place {
    tree base = NULL_TREE;
    tree variable = NULL_TREE;  // none: NULL_TREE
    HOST_WIDE_INT offset = 0;

    bool beside(const Place& o) const {
        return operand_equal_p(base, o.base, 0) &&
               (variable ? o.variable && operand_equal_p(variable, o.variable, 0) : !o.variable);
    }
};

Place place_of(tree address) {
    tree x = address;
    if (TREE_CODE(x) == SSA_NAME && is_gimple_assign(SSA_NAME_DEF_STMT(x))) {
        gimple* def = SSA_NAME_DEF_STMT(x);
        if (gimple_assign_rhs_code(def) == ADDR_EXPR) {
            x = gimple_assign_rhs1(def);
        } else if (gimple_assign_rhs_code(def) == POINTER_PLUS_EXPR && tree_fits_shwi_p(gimple_assign_rhs2(def))) {
            return {gimple_assign_rhs1(def), NULL_TREE, tree_to_shwi(gimple_assign_rhs2(def))};
        }
    }
    if (TREE_CODE(x) != ADDR_EXPR) return {address, NULL_TREE, 0};
    poly_int64 bits = 0, at = 0;
    tree variable = NULL_TREE;
    machine_mode mode;
    int unsigned_p = 0, reverse_p = 0, volatile_p = 0;
    tree base = get_inner_reference(TREE_OPERAND(x, 0), &bits, &at, &variable, &mode, &unsigned_p, &reverse_p,
                                    &volatile_p);
    if (!at.is_constant() || at.to_constant() % BITS_PER_UNIT != 0) return {address, NULL_TREE, 0};
    HOST_WIDE_INT offset = at.to_constant() / BITS_PER_UNIT;
    // Beside a variable part the constant ones are folded into it (i · 96 + 40): take them out.
    while (variable && TREE_CODE(variable) == PLUS_EXPR && tree_fits_shwi_p(TREE_OPERAND(variable, 1))) {
        offset += tree_to_shwi(TREE_OPERAND(variable, 1));
        variable = TREE_OPERAND(variable, 0);
    }
    if (TREE_CODE(base) == MEM_REF) {
        const poly_offset_int extra = mem_ref_offset(base);
        if (!extra.is_constant() || !wi::fits_shwi_p(extra.to_constant())) return {address, NULL_TREE, 0};
        offset += extra.to_constant().to_shwi();
        base = TREE_OPERAND(base, 0);
    }
    return {base, variable, offset};
}

// The bytes an access of the hook at position `hook` in kInlined touches.
HOST_WIDE_INT access_size(int hook) { return HOST_WIDE_INT{1} << (hook % 4); }

// The most 64-byte granules `bytes` consecutive bytes can touch.
HOST_WIDE_INT granules(HOST_WIDE_INT bytes) { return (bytes + 62) / 64 + 1; }

// Consecutive accesses of a group that one probe covers: at constant
// offsets from one base, within 8 granules; the first one probes. Nothing
// between them may take a slow branch, which could watch a new line: so the
// run's accesses are consecutive, and its slow branch calls every hook of it.
struct Run {
    size_t first = 0, count = 1;        // accesses [first, first + count) of the group
    HOST_WIDE_INT low = 0, high = 0;    // the bytes [low, high) they touch, from the base
    unsigned width = 1;                 // bytes of the filter the probe reads: 1, 2, 4 or 8
};

std::vector<Run> runs_of(const std::vector<gcall*>& calls, std::vector<Place>& places) {
    places.clear();
    for (gcall* c : calls) places.push_back(place_of(gimple_call_arg(c, 0)));
    std::vector<Run> runs;
    for (size_t i = 0; i < calls.size(); ++i) {
        const HOST_WIDE_INT lo = places[i].offset, hi = lo + access_size(inlined_hook(calls[i]));
        if (!runs.empty() && places[runs.back().first].beside(places[i])) {
            Run& r = runs.back();
            const HOST_WIDE_INT low = std::min(r.low, lo), high = std::max(r.high, hi);
            if (granules(high - low) <= 8) {
                r.low = low, r.high = high, ++r.count;
                const HOST_WIDE_INT g = granules(high - low);
                r.width = g <= 1 ? 1 : g <= 2 ? 2 : g <= 4 ? 4 : 8;
                continue;
            }
        }
        runs.push_back(Run{i, 1, lo, hi, 1});  // an access of 1–8 bytes is aligned: one granule
    }
    return runs;
}

// The address at `offset` from the base of `anchor`'s place, computed from
// anchor's own address (the base's value itself may be out of reach).
tree address_at(Emitter& e, gcall* anchor, const Place& anchor_place, HOST_WIDE_INT offset) {
    tree address = gimple_call_arg(anchor, 0);
    if (offset == anchor_place.offset) return address;
    return e.value(TREE_TYPE(address), POINTER_PLUS_EXPR, address,
                   size_int(offset - anchor_place.offset));
}

// The unsigned type of `width` bytes, read at any alignment.
tree probe_type(unsigned width) {
    tree t = width == 1 ? unsigned_char_type_node : width == 2 ? short_unsigned_type_node
             : width == 4 ? unsigned_type_node : long_long_unsigned_type_node;
    return width == 1 ? t : build_aligned_type(t, BITS_PER_UNIT);
}

// A group of accesses: the hook calls of one basic block with no other call
// between them (nothing else can count an access in between, but for a
// signal handler). The group takes its numbers at once, then probes the
// filter once per run of accesses:
//   before the first: until_event −= m (one instruction: the value is not kept, the slow
//                     blocks read it again);
//                     filter, mask = the HotPath's, or "always" if until_event < 0
//   at run r (its first access j, its accesses j … j+k):
//                     if (the width bytes of filter at the granule of its lowest byte & mask) goto slow_r;
//   slow_r (rare):    until_event += m − j + 1; the hooks of accesses j … j+k, each counting its
//                     own (c + j, c + j + 1 …); until_event −= m − j − k; filter, mask again
// so the hooks see every access numbered as if each had counted itself.
void inline_group(const std::vector<gcall*>& calls, tree hot) {
    using sprof::HotPath;
    tree u64 = uint64_type_node;
    const profile_probability rare = profile_probability::very_unlikely();
    const HOST_WIDE_INT m = calls.size();
    std::vector<Place> places;
    const std::vector<Run> runs = runs_of(calls, places);

    // Before the first access: the group's numbers, and its filter unless it holds the event.
    const location_t start = gimple_location(calls[0]);
    Emitter first{gsi_for_stmt(calls[0]), start};
    tree always = build_string_literal(sprof::kFilterPad + 1, "\1\1\1\1\1\1\1\1", unsigned_char_type_node);
    tree left = take_numbers(first, hot, m);
    tree filter = first.load(hot, g_filter_type, offsetof(HotPath, filter));
    tree mask = first.load(hot, u64, offsetof(HotPath, filter_mask));
    gimple* due = gimple_build_cond(LT_EXPR, left, build_int_cst(until_type(), 0), NULL_TREE, NULL_TREE);
    first.add(due);
    basic_block head = gimple_bb(due);
    edge armed = split_block(head, due);
    armed->flags = EDGE_FALSE_VALUE;
    armed->probability = rare.invert();
    basic_block holds_event = create_empty_bb(head);
    edge to_event = make_edge(head, holds_event, EDGE_TRUE_VALUE);
    to_event->probability = rare;
    holds_event->count = to_event->count();
    if (current_loops) add_bb_to_loop(holds_event, head->loop_father);
    edge from_event = make_single_succ_edge(holds_event, armed->dest, EDGE_FALLTHRU);
    Probe probe{make_ssa_name(g_filter_type), make_ssa_name(u64)};
    gphi* f = create_phi_node(probe.filter, armed->dest);
    add_phi_arg(f, filter, armed, start);
    add_phi_arg(f, always, from_event, start);
    gphi* k = create_phi_node(probe.mask, armed->dest);
    add_phi_arg(k, mask, armed, start);
    add_phi_arg(k, build_int_cst(u64, 0), from_event, start);

    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        gcall* anchor = calls[run.first];
        const Place& at = places[run.first];
        const location_t where = gimple_location(anchor);
        basic_block head = gimple_bb(anchor);
        const HOST_WIDE_INT j = run.first + 1;  // the run's first access, 1-based

        // The probe, before the first access: the granules of the run's bytes.
        Emitter p{gsi_for_stmt(anchor), where};
        tree lowest = p.value(u64, NOP_EXPR, address_at(p, anchor, at, run.low));
        tree bucket = p.value(sizetype, BIT_AND_EXPR,
                              p.value(u64, RSHIFT_EXPR, lowest, build_int_cst(u64, sprof::kFilterGranuleShift)),
                              probe.mask);
        tree cell = p.value(g_filter_type, POINTER_PLUS_EXPR, probe.filter, bucket);
        tree type = probe_type(run.width);
        tree bytes = build2(MEM_REF, type, cell, build_int_cst(g_filter_type, 0));
        TREE_THIS_NOTRAP(bytes) = 1;  // inside the filter and its pad
        tree watched = p.load(type, bytes);
        gimple* hit = gimple_build_cond(NE_EXPR, watched, build_int_cst(type, 0), NULL_TREE, NULL_TREE);
        p.add(hit);

        // The slow block: the run's hooks, told what they touch, between the count's adjustments.
        edge to_slow = split_block(head, hit);
        basic_block slow = to_slow->dest;
        to_slow->flags = EDGE_TRUE_VALUE;
        to_slow->probability = rare;
        Emitter s{gsi_for_stmt(anchor), where};  // before the anchor, which stays behind in the join
        count_accesses(s, hot, -(m - j + 1));
        for (size_t a = run.first; a < run.first + run.count; ++a) {
            gcall* call = calls[a];
            s.where = gimple_location(call);
            gcall* told = told_hook_call(call, hot);
            if (a != run.first) gimple_call_set_arg(told, 0, address_at(s, anchor, at, places[a].offset));
            s.add(told);
            cgraph_update_edges_for_call_stmt(call, gimple_call_fndecl(call), told);
        }
        s.where = where;
        count_accesses(s, hot, m - j - static_cast<HOST_WIDE_INT>(run.count) + 1);
        const bool more = r + 1 < runs.size();
        Probe again = more ? group_probe(s, hot, always) : probe;
        edge slow_out = split_block(slow, last_before(s.gsi, slow));
        basic_block join = slow_out->dest;
        for (size_t a = run.first; a < run.first + run.count; ++a) {  // the calls the slow block made
            gimple_stmt_iterator call = gsi_for_stmt(calls[a]);
            unlink_stmt_vdef(calls[a]);
            gsi_remove(&call, true);
            release_defs(calls[a]);
        }
        slow->count = to_slow->count();
        edge fast = make_edge(head, join, EDGE_FALSE_VALUE);
        fast->probability = rare.invert();

        // The runs left probe what the slow block found, or what they had.
        if (more) {
            Probe merged{make_ssa_name(g_filter_type), make_ssa_name(u64)};
            gphi* f = create_phi_node(merged.filter, join);
            add_phi_arg(f, probe.filter, fast, where);
            add_phi_arg(f, again.filter, slow_out, where);
            gphi* k = create_phi_node(merged.mask, join);
            add_phi_arg(k, probe.mask, fast, where);
            add_phi_arg(k, again.mask, slow_out, where);
            probe = merged;
        }
    }
}

// The bytes a hook that stays a call takes when they are known and few
// (unaligned accesses of 2 to 8 bytes: memcpy(&x, p, 4); 16-byte ones), or 0.
HOST_WIDE_INT inlinable_size(gcall* call) {
    const int i = called_hook(call);
    if (kCalledSize[i]) return kCalledSize[i];
    tree size = gimple_call_arg(call, 1);
    return tree_fits_shwi_p(size) && tree_to_shwi(size) >= 1 && tree_to_shwi(size) <= 8 ? tree_to_shwi(size) : 0;
}

// An access of `size` bytes that gcc could not prove aligned (a range or
// 16-byte hook): one access of the stream when its bytes lie in one line,
// two when they straddle. The common case inline, alone (its count is not
// known before it runs, so it is no group's):
//   head:   if (((a ^ (a + size − 1)) & line_mask) | filter[(a >> 6) & mask]) goto call;
//   count:  if (--until_event < 0) { until_event += 1; goto call; }  goto join;
//   call:   the hook, which counts and decides as it always did
// (a watched line marks every granule it covers, so the granule of a is enough).
void inline_range(gcall* call, HOST_WIDE_INT size, tree hot) {
    using sprof::HotPath;
    tree u64 = uint64_type_node;
    const profile_probability rare = profile_probability::very_unlikely();
    const location_t where = gimple_location(call);
    Emitter e{gsi_for_stmt(call), where};
    tree address = e.value(u64, NOP_EXPR, gimple_call_arg(call, 0));
    tree last = e.value(u64, PLUS_EXPR, address, build_int_cst(u64, size - 1));
    tree straddles = e.value(u64, BIT_AND_EXPR, e.value(u64, BIT_XOR_EXPR, address, last),
                             e.load(hot, u64, offsetof(HotPath, line_mask)));
    tree bucket = e.value(sizetype, BIT_AND_EXPR,
                          e.value(u64, RSHIFT_EXPR, address, build_int_cst(u64, sprof::kFilterGranuleShift)),
                          e.load(hot, u64, offsetof(HotPath, filter_mask)));
    tree cell = e.value(g_filter_type, POINTER_PLUS_EXPR, e.load(hot, g_filter_type, offsetof(HotPath, filter)), bucket);
    tree byte = build2(MEM_REF, unsigned_char_type_node, cell, build_int_cst(g_filter_type, 0));
    TREE_THIS_NOTRAP(byte) = 1;
    tree doubt = e.value(u64, BIT_IOR_EXPR, straddles, e.value(u64, NOP_EXPR, e.load(unsigned_char_type_node, byte)));
    gimple* to_hook = gimple_build_cond(NE_EXPR, doubt, build_int_cst(u64, 0), NULL_TREE, NULL_TREE);
    e.add(to_hook);

    basic_block head = gimple_bb(to_hook);
    edge to_call = split_block(head, to_hook);  // head → [call, the rest]
    basic_block call_block = to_call->dest;
    edge after = split_block(call_block, call);  // [call] → the rest
    basic_block join = after->dest;
    to_call->flags = EDGE_TRUE_VALUE;
    to_call->probability = rare;

    basic_block count = create_empty_bb(head);
    basic_block undo = create_empty_bb(count);
    if (current_loops) {
        add_bb_to_loop(count, head->loop_father);
        add_bb_to_loop(undo, head->loop_father);
    }
    edge to_count = make_edge(head, count, EDGE_FALSE_VALUE);
    to_count->probability = rare.invert();
    count->count = to_count->count();
    Emitter c{gsi_start_bb(count), where};
    tree left = take_numbers(c, hot, 1);
    c.add(gimple_build_cond(LT_EXPR, left, build_int_cst(until_type(), 0), NULL_TREE, NULL_TREE));
    edge counted = make_edge(count, join, EDGE_FALSE_VALUE);
    counted->probability = rare.invert();
    edge to_undo = make_edge(count, undo, EDGE_TRUE_VALUE);
    to_undo->probability = rare;
    undo->count = to_undo->count();
    Emitter u{gsi_start_bb(undo), where};
    count_accesses(u, hot, -1);  // the event's access: the hook counts it
    make_single_succ_edge(undo, call_block, EDGE_FALLTHRU);
    call_block->count = to_call->count() + to_undo->count();
    tell_called_hook(call, hot);
}

// The address of the thread's HotPath, computed once on entry to the function.
tree hot_path_address(function* fn) {
    tree hot = make_ssa_name(build_pointer_type(TREE_TYPE(g_hot_decl)));
    pt_solution_set_var(&get_ptr_info(hot)->pt, g_hot_decl);  // it points there and nowhere else
    gimple* g = gimple_build_assign(hot, build_fold_addr_expr(g_hot_decl));
    gsi_insert_on_edge_immediate(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fn)), g);
    return hot;
}

const pass_data kPassData = {
    GIMPLE_PASS,
    "sprof_inline_access",
    OPTGROUP_NONE,
    TV_NONE,
    PROP_ssa | PROP_cfg,
    0,
    0,
    0,
    TODO_update_ssa_only_virtuals,
};

struct InlineAccessPass : gimple_opt_pass {
    explicit InlineAccessPass(gcc::context* ctx) : gimple_opt_pass(kPassData, ctx) {}
    opt_pass* clone() override { return new InlineAccessPass(m_ctxt); }
    bool gate(function*) override { return (flag_sanitize & SANITIZE_THREAD) != 0; }

    unsigned int execute(function* fn) override {
        // The groups, each in program order (nothing changed yet), and the hooks that stay calls.
        std::vector<std::vector<gcall*>> groups;
        std::vector<gcall*> called;
        basic_block bb;
        FOR_EACH_BB_FN(bb, fn) {
            bool open = false;
            for (gimple_stmt_iterator i = gsi_start_bb(bb); !gsi_end_p(i); gsi_next(&i)) {
                gimple* g = gsi_stmt(i);
                if (inlined_hook(g) >= 0) {
                    if (!open) groups.emplace_back();
                    groups.back().push_back(as_a<gcall*>(g));
                    open = true;
                } else if (is_gimple_call(g) || gimple_code(g) == GIMPLE_ASM) {
                    if (called_hook(g) >= 0) called.push_back(as_a<gcall*>(g));
                    open = false;  // it may count accesses itself
                }
            }
        }
        if (groups.empty() && called.empty()) return 0;
        make_trees();
        tree hot = hot_path_address(fn);
        for (gcall* call : called) {
            if (const HOST_WIDE_INT size = inlinable_size(call)) inline_range(call, size, hot);
            else tell_called_hook(call, hot);
        }
        for (const auto& group : groups) inline_group(group, hot);
        free_dominance_info(CDI_DOMINATORS);
        free_dominance_info(CDI_POST_DOMINATORS);
        mark_virtual_operands_for_renaming(fn);
        return TODO_update_ssa_only_virtuals;
    }
};

}  // namespace

int plugin_init(plugin_name_args* info, plugin_gcc_version* version) {
    if (!plugin_default_version_check(version, &gcc_version)) {
        error("%s: built for gcc %s, loaded into gcc %s", info->base_name, gcc_version.basever,
              version->basever);
        return 1;
    }
    register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, nullptr, const_cast<ggc_root_tab*>(g_roots));
    // After every instance of gcc's tsan pass: "tsan" (-O1 and up, -Og), "tsan0" (-O0).
    for (const char* tsan : {"tsan", "tsan0"}) {
        register_pass_info pass{new InlineAccessPass(g), tsan, 0, PASS_POS_INSERT_AFTER};
        register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, nullptr, &pass);
    }
    return 0;
}
