// The chi-squared test of homogeneity the speculative-sampling tests share
// (api/tst_speculative_sampling, runtime/tst_forward_mtp): are two samples of
// tokens drawn from the same distribution, at p = 0.001?
#pragma once

#include "burrow/engine.h"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace burrow::test {

// The chi-squared value whose upper tail is 0.001 (Wilson-Hilferty).
inline double chiSquaredCritical(int df)
{
    const double z = 3.0902;   // the standard normal's 0.999 quantile
    const double a = 2.0 / (9.0 * df);
    return df * std::pow(1.0 - a + z * std::sqrt(a), 3.0);
}

// Two histograms over the same tokens: chi-squared of homogeneity, tokens
// with fewer than 10 observations in both together pooled into one bin.
// Returns false (with the statistic) when it exceeds the 0.001 critical value.
inline bool homogeneous(const std::map<Token, int> &a, const std::map<Token, int> &b, double *stat, int *df)
{
    std::map<Token, std::pair<int, int>> joint;
    for (const auto &[t, n] : a)
        joint[t].first += n;
    for (const auto &[t, n] : b)
        joint[t].second += n;
    std::vector<std::pair<int, int>> bins;
    std::pair<int, int> rare{0, 0};
    for (const auto &[t, n] : joint) {
        if (n.first + n.second < 10) {
            rare.first += n.first;
            rare.second += n.second;
        } else {
            bins.push_back(n);
        }
    }
    if (rare.first + rare.second > 0)
        bins.push_back(rare);
    double na = 0, nb = 0;
    for (const auto &bn : bins) {
        na += bn.first;
        nb += bn.second;
    }
    *stat = 0;
    for (const auto &bn : bins) {
        const double total = bn.first + bn.second;
        const double ea = total * na / (na + nb), eb = total * nb / (na + nb);
        *stat += (bn.first - ea) * (bn.first - ea) / ea + (bn.second - eb) * (bn.second - eb) / eb;
    }
    *df = static_cast<int>(bins.size()) - 1;
    return *df < 1 || *stat <= chiSquaredCritical(*df);
}

} // namespace burrow::test
