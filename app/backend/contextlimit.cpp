#include "contextlimit.h"

#include <algorithm>

int ContextLimit::decide(int requested, int trained, int fitting)
{
    int size = requested > 0 ? requested : AutomaticCeiling;
    if (requested <= 0 && fitting > 0)
        size = std::min(size, std::max(fitting, Minimum));
    if (trained > 0)
        size = std::min(size, trained);
    return std::max(1, size);
}
