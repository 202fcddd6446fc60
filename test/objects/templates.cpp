// Templates and inline functions: COMDAT groups, whose rewriting depends on
// the signature symbol's binding.
#include <vector>
template <class T> T twice(T x) { return x * 2; }
inline int inl(int x) { static int calls; return x + calls++; }
namespace { struct Local { virtual ~Local() {} virtual int f() { return 1; } }; }
int g() { std::vector<int> v{1, 2, 3}; Local l; return twice(v[0]) + (int)twice(2.0) + inl(3) + l.f(); }
