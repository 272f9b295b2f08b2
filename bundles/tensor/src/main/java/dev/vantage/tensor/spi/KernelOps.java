package dev.vantage.tensor.spi;

import java.util.List;

/**
 * The kernels a backend can register, and how each {@link KernelCall} is laid out: {@code in} lists the tensor
 * inputs, {@code out} the preallocated outputs, {@code scalars} and {@code ints} the other arguments by position.
 * Shapes are checked and outputs allocated before a kernel runs. Float tensors are {@code float32}; index tensors
 * are {@code int64}; masks are {@code bool}.
 *
 * <p>Elementwise kernels: inputs may be views with any strides, and broadcast to the output's shape (a size-1 or
 * missing leading dimension repeats). When the second input is null, {@code scalar(0)} is the other operand.
 * Registered under the out-of-place name, the same kernel serves the in-place form ({@code aten::add_}), where
 * output 0 is input 0 and may itself be a strided view.
 */
public final class KernelOps {

    /** in: a, b|null; scalars: other, alpha; out: {@code a + alpha * b}. */
    public static final String ADD = "aten::add";
    /** in: a, b|null; scalars: other, alpha; out: {@code a - alpha * b}. */
    public static final String SUB = "aten::sub";
    /** in: a, b|null; scalars: other; out: {@code a * b}. */
    public static final String MUL = "aten::mul";
    /** in: a, b|null; scalars: other; out: {@code a / b}. */
    public static final String DIV = "aten::div";
    /** in: a; scalars: exponent; out: {@code a ^ exponent}. */
    public static final String POW = "aten::pow";
    /** in: a; out: {@code -a}. */
    public static final String NEG = "aten::neg";
    /** in: a; out: {@code e ^ a}. */
    public static final String EXP = "aten::exp";
    /** in: a; out: natural logarithm. */
    public static final String LOG = "aten::log";
    /** in: a; out: square root. */
    public static final String SQRT = "aten::sqrt";
    /** in: a; out: {@code max(a, 0)}. */
    public static final String RELU = "aten::relu";
    /** in: a; out: the exact (erf) GELU. */
    public static final String GELU = "aten::gelu";
    /** in: a; out: hyperbolic tangent. */
    public static final String TANH = "aten::tanh";
    /** in: a; out: logistic sigmoid. */
    public static final String SIGMOID = "aten::sigmoid";
    /** in: grad, self; scalars: threshold; out: {@code self > threshold ? grad : 0}. */
    public static final String THRESHOLD_BACKWARD = "aten::threshold_backward";
    /** in: grad, self; out: grad times the derivative of exact GELU at self. */
    public static final String GELU_BACKWARD = "aten::gelu_backward";
    /** in: grad, output (tanh's result); out: {@code grad * (1 - output^2)}. */
    public static final String TANH_BACKWARD = "aten::tanh_backward";
    /** in: grad, output (sigmoid's result); out: {@code grad * output * (1 - output)}. */
    public static final String SIGMOID_BACKWARD = "aten::sigmoid_backward";
    /** in: self, t1, t2; scalars: value; out: {@code self + value * t1 * t2}. */
    public static final String ADDCMUL = "aten::addcmul";
    /** in: self, t1, t2; scalars: value; out: {@code self + value * t1 / t2}. */
    public static final String ADDCDIV = "aten::addcdiv";
    /** In place. in: self; scalars: value; out 0 is self, every element set to value. */
    public static final String FILL_ = "aten::fill_";
    /** In place. in: self; out 0 is self, set to zero. */
    public static final String ZERO_ = "aten::zero_";
    /**
     * In place. in: self, src (same shape or broadcastable; either may be on another device or the host, and of
     * another dtype, converted); out 0 is self. A non-CPU backend must register it: it is how tensors move.
     */
    public static final String COPY_ = "aten::copy_";
    /** in: the tensors to join (same shape but in dim); ints: dim; out: their concatenation. */
    public static final String CAT = "aten::cat";
    /** in: self, index (int64, 1-d); ints: dim; out: self's slices at index along dim. */
    public static final String INDEX_SELECT = "aten::index_select";
    /** In place. in: self, index (int64, 1-d), source; ints: dim; scalars: alpha; out 0 is self, with
     * {@code alpha * source}'s slices added at index along dim (repeated indices add up). */
    public static final String INDEX_ADD_ = "aten::index_add_";
    /** in: self; ints: dims (sorted, distinct), keepdim (0 or 1); out: the sum over dims. */
    public static final String SUM = "aten::sum";
    /** in: self; ints: dims (sorted, distinct), keepdim (0 or 1); out: the mean over dims. */
    public static final String MEAN = "aten::mean";
    /** in: self; ints: dim, keepdim; out (int64): index of the first maximum along dim. */
    public static final String ARGMAX = "aten::argmax";
    /** in: a [m, k], b [k, n]; out: [m, n]. */
    public static final String MM = "aten::mm";
    /** in: bias (broadcastable to [m, n]), a [m, k], b [k, n]; scalars: beta, alpha;
     * out: {@code beta * bias + alpha * a @ b}. */
    public static final String ADDMM = "aten::addmm";
    /** in: a [B, m, k], b [B, k, n]; out: [B, m, n]. */
    public static final String BMM = "aten::bmm";
    /** in: input [N, C, H, W], weight [O, C, kh, kw], bias [O]|null; ints: stride, padding, dilation (2 each);
     * out: [N, O, H', W']. */
    public static final String CONVOLUTION = "aten::convolution";
    /** in: grad_output, input, weight; ints: stride, padding, dilation, bias_defined (0 or 1);
     * out: grad_input, grad_weight, grad_bias (null when bias_defined is 0). */
    public static final String CONVOLUTION_BACKWARD = "aten::convolution_backward";
    /** in: self [N, C, H, W]; ints: kernel, stride, padding (2 each); out: values, indices (int64, flat H*W
     * position of each maximum in its plane). */
    public static final String MAX_POOL2D_WITH_INDICES = "aten::max_pool2d_with_indices";
    /** in: grad_output, self, indices; ints: kernel, stride, padding; out: grad_input. */
    public static final String MAX_POOL2D_WITH_INDICES_BACKWARD = "aten::max_pool2d_with_indices_backward";
    /** in: self; ints: dim; out: softmax along dim. */
    public static final String SOFTMAX = "aten::_softmax";
    /** in: self; ints: dim; out: log-softmax along dim. */
    public static final String LOG_SOFTMAX = "aten::_log_softmax";
    /** in: grad_output, output (softmax's result); ints: dim; out: grad_input. */
    public static final String SOFTMAX_BACKWARD_DATA = "aten::_softmax_backward_data";
    /** in: grad_output, output (log-softmax's result); ints: dim; out: grad_input. */
    public static final String LOG_SOFTMAX_BACKWARD_DATA = "aten::_log_softmax_backward_data";
    /** in: input, weight|null, bias|null; ints: normalized_shape; scalars: eps; out: output, mean, rstd (mean and
     * rstd shaped as input's outer dims followed by ones). */
    public static final String NATIVE_LAYER_NORM = "aten::native_layer_norm";
    /** in: grad_output, input, mean, rstd, weight|null; ints: normalized_shape;
     * out: grad_input, grad_weight|null, grad_bias|null (null when weight is null). */
    public static final String NATIVE_LAYER_NORM_BACKWARD = "aten::native_layer_norm_backward";
    /** in: self [N, C] (log-probabilities), target (int64, [N]); ints: reduction (0 none, 1 mean, 2 sum),
     * ignore_index; out: output ([] or [N]), total_weight ([]). */
    public static final String NLL_LOSS_FORWARD = "aten::nll_loss_forward";
    /** in: grad_output, self, target, total_weight; ints: reduction, ignore_index; out: grad_input [N, C]. */
    public static final String NLL_LOSS_BACKWARD = "aten::nll_loss_backward";
    /** in: self; scalars: p, seed; out: output (kept values scaled by 1 / (1 - p)), mask (bool, true where
     * kept). The mask is a function of the seed and the element's position, so results are reproducible. */
    public static final String NATIVE_DROPOUT = "aten::native_dropout";
    /** in: grad_output, mask; scalars: scale; out: {@code mask ? grad_output * scale : 0}. */
    public static final String NATIVE_DROPOUT_BACKWARD = "aten::native_dropout_backward";

    /** Every kernel name above, in a stable order. */
    public static final List<String> ALL = List.of(ADD, SUB, MUL, DIV, POW, NEG, EXP, LOG, SQRT, RELU, GELU, TANH,
            SIGMOID, THRESHOLD_BACKWARD, GELU_BACKWARD, TANH_BACKWARD, SIGMOID_BACKWARD, ADDCMUL, ADDCDIV, FILL_,
            ZERO_, COPY_, CAT, INDEX_SELECT, INDEX_ADD_, SUM, MEAN, ARGMAX, MM, ADDMM, BMM, CONVOLUTION,
            CONVOLUTION_BACKWARD, MAX_POOL2D_WITH_INDICES, MAX_POOL2D_WITH_INDICES_BACKWARD, SOFTMAX, LOG_SOFTMAX,
            SOFTMAX_BACKWARD_DATA, LOG_SOFTMAX_BACKWARD_DATA, NATIVE_LAYER_NORM, NATIVE_LAYER_NORM_BACKWARD,
            NLL_LOSS_FORWARD, NLL_LOSS_BACKWARD, NATIVE_DROPOUT, NATIVE_DROPOUT_BACKWARD);

    private KernelOps() {
    }
}
